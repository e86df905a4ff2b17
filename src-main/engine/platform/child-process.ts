/**
 * node:child_process, loaded on first use (a stage, a `ps` look, an ACL change) instead of when the room
 * process starts: ~10 ms of module loading before the first answer that a room serving calls never needs.
 */
export function childProcess(): typeof import('node:child_process') {
  return process.getBuiltinModule('node:child_process');
}
