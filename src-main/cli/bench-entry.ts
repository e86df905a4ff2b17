/** What bench/run.js drives: the engine and the room, built like the CLIs so benchmarks run the shipped code. */
export { Engine, Room } from '../engine/index';
/** The scheduler (from scratch, and on a graph's shape built once, as a tick runs it) and the submit-time checks, for bench/investigations/graph-scheduler.js. */
export { decide, decideOn, shapeOf } from '../common/graphs/graph-scheduler';
export { validateGraph } from '../common/graphs/graph-validate';
