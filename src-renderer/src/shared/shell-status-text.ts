import type { ShellView } from '../../../src-main/common/methods/shells';
import { conditionText } from '../../../src-main/common/agent-condition-text';

/**
 * A shell's status in words (busy, idle, waiting for you, exit N; an agent's "stalled 12 min", "limited until
 * 03:00" before them), for the list, the header and their badges.
 */
export function statusText(shell: ShellView, now: Date = new Date()): string {
  const s = shell.status;
  if (!shell.alive || s.state === 'exited') return shell.signal ? shell.signal : shell.exitCode !== null ? `exit ${shell.exitCode}` : 'ended';
  const condition = conditionText(shell.condition, now);
  if (condition) return condition;
  if (s.state === 'waiting') return 'waiting for you';
  // working: output flows, or (a plain shell) a command runs; idle: at its prompt, or quiet and not asking
  return s.state === 'working' ? 'busy' : s.state;
}

/** The badge class of each status: waiting stands out, exited is muted. */
export function statusBadge(shell: ShellView): string {
  if (!shell.alive) return 'badge-muted';
  if (shell.condition?.stalled || shell.condition?.limited) return 'badge-warn';
  return shell.status.state === 'waiting' ? 'badge-warn' : shell.status.state === 'working' ? 'badge-ok' : 'badge-idle';
}

/** How many live shells ask the person now (the Terminals item's count). */
export function waitingCount(shells: readonly ShellView[]): number {
  return shells.filter((s) => s.alive && s.status.state === 'waiting').length;
}
