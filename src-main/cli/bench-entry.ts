/** What bench/run.js drives: the engine and the room, built like the CLIs so benchmarks run the shipped code. */
export { Engine, Room } from '../engine/index';
