/**
 * The engine's public surface for the doors and entry points (cli/, server/, app/): the Engine and its
 * contract method table, opening a room (as its writer, or read-only), where a room lives, and which process
 * serves it. Doors import this (or engine.ts), never engine/store/** or a feature's internals (eslint.config.js).
 */
export { Engine } from './engine';
export type { CallContext } from './feature';
export { Room } from './room/room';
export { findRunningRoom, type RunningRoomEndpoint } from './room/running-room';
export { resolvePaths, type Paths } from './config';
