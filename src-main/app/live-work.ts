import type { MessageBoxOptions } from 'electron';
import type { DoorEngine } from '../engine/index';

/**
 * What would end if the app's own room process stopped now: agents (the room's agent terminals, and
 * participants connected over MCP), the shells' programs, and graphs still pending or running. Shells are
 * volatile (SPEC): they live only as long as the room process; a graph's record survives, its running stages
 * do not.
 */
export interface LiveWork {
  /** Agents by participant name: one the room started in a live terminal, or one connected to the endpoint now. */
  agents: string[];
  /** Live shells that are not an agent's terminal. */
  shells: number;
  /** Graphs pending or running. */
  graphs: number;
}

export const NO_LIVE_WORK: LiveWork = { agents: [], shells: 0, graphs: 0 };

export function isIdle(work: LiveWork): boolean {
  return work.agents.length === 0 && work.shells === 0 && work.graphs === 0;
}

/** Reads the live work of a room through the contract as the operator (the same reads `ce` makes). */
export async function readLiveWork(engine: DoorEngine): Promise<LiveWork> {
  const operator = engine.operator();
  const [{ shells }, { participants }, { graphs }] = await Promise.all([
    engine.call(operator, 'shell_list', {}),
    engine.call(operator, 'participant_activity', {}),
    engine.call(operator, 'tasks_list', {}),
  ]);
  const agents = new Set<string>();
  let plain = 0;
  for (const shell of shells) {
    if (!shell.alive) continue;
    if (shell.agent) agents.add(shell.agent.participant);
    else plain++;
  }
  for (const p of participants) if (p.connections > 0 && p.name !== operator.name) agents.add(p.name);
  const live = graphs.filter((g) => g.state === 'pending' || g.state === 'running').length;
  return { agents: [...agents].sort(), shells: plain, graphs: live };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function listed(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}`;
}

/** "2 agents (claude-code, worker), 1 shell and 1 graph", or "nothing" when idle. */
export function describeLiveWork(work: LiveWork): string {
  const parts: string[] = [];
  if (work.agents.length > 0) {
    const names = work.agents.slice(0, 4).join(', ') + (work.agents.length > 4 ? ', …' : '');
    parts.push(`${count(work.agents.length, 'agent', 'agents')} (${names})`);
  }
  if (work.shells > 0) parts.push(count(work.shells, 'shell', 'shells'));
  if (work.graphs > 0) parts.push(count(work.graphs, 'graph', 'graphs'));
  return parts.length === 0 ? 'nothing' : listed(parts);
}

/** The button of quitPrompt that quits (the other cancels). */
export const QUIT_BUTTON = 0;

/**
 * Asked when the person quits while the app's own room has live work: what will end, and the choice. Cancel
 * is the default and what Esc answers; the room keeps running either way until the person confirms.
 */
export function quitPrompt(work: LiveWork, roomName: string): MessageBoxOptions {
  return {
    type: 'warning',
    title: 'Quit Commonroom?',
    message: `Quitting ends what runs in ${roomName}: ${describeLiveWork(work)}.`,
    detail:
      'Agents and shells end with the room process (their terminals are not kept); running graph stages are stopped and can be run again. ' +
      'Close the window instead to keep the room working in the background, or run it as a login service ("commonroom service install") so quitting the app ends nothing.',
    buttons: ['Quit and end them', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
  };
}
