/** What bench/run.js drives: the engine and the room, built like the CLIs so benchmarks run the shipped code. */
export { Engine, Room } from '../engine/index';
/** The scheduler and the submit-time checks, for bench/graph-scheduler.js (how they grow with graph size). */
export { decide } from '../common/graphs/graph-scheduler';
export { validateGraph } from '../common/graphs/graph-validate';
