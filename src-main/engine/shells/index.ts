/**
 * The shells face: the shell registry (every PTY shell of the room, in memory: no table), a shell's view,
 * its status, its live attachments and the stage terminal host graphs' tty stages run in.
 */

export { type ShellAttachment, type Watermarks, ShellRegistry, SHELLS_CHANGED } from './shell-registry';
export { PtyShell, type ShellExit, type ShellViewer } from './pty-shell';
export { viewOf } from './shell-view';
export { shellsFeature, type RemoteShellPort } from './shells-feature';
export { SHELL_EVENTS } from './shell-events';
export { attachViewer, checkInputSize, exitedRefusal } from './live-attachment';
