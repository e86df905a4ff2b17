import type { ShellView } from '../../common/methods/shells';
import type { PtyShell } from './pty-shell';

/** A shell as its readers see it (shell_list, shell_open's answer, the Terminals screen). */
export function viewOf(s: PtyShell): ShellView {
  const last = s.inputs.at(-1);
  return {
    id: s.id,
    name: s.spec.name,
    owner: s.spec.owner,
    cwd: s.spec.cwd,
    command: [s.spec.shownFile ?? s.spec.file, ...(s.spec.shownArgs ?? s.spec.args)],
    pid: s.process.pid,
    startedAt: s.startedAt,
    alive: s.alive,
    exitCode: s.exit?.exitCode ?? null,
    signal: s.exit?.signal ?? null,
    cols: s.cols,
    rows: s.rows,
    outputBytes: s.ring.end,
    lastInput: last ? { by: last.by, at: last.at } : null,
    sandbox: s.spec.sandbox ?? null,
    status: s.status.status,
    agent: s.spec.agent ?? null,
    ...(s.condition ? { condition: s.condition } : {}),
  };
}
