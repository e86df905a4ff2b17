import { CLIENTS, type StartPlan } from './clients/index';

/**
 * The agent CLIs the room can start in a terminal of its own, already connected (ce agent start, the Terminals
 * screen's New agent): the clients of clients/index.ts that have a start plan, each given the room's MCP server
 * for one run only, the way its own documentation says (checked against the installed CLI's --help and a real
 * run; see docs/agents.md).
 */
export { AGENT_ENV, AGENT_SERVER_NAME, type RunFile, type RunPlan } from './clients/index';

type Startable = Extract<(typeof CLIENTS)[number], { start: StartPlan }>;
export type AgentClientId = Startable['id'];

const STARTABLE = CLIENTS.filter((c): c is Startable => 'start' in c);
export const AGENT_CLIENT_IDS = STARTABLE.map((c) => c.id) as [AgentClientId, ...AgentClientId[]];

/**
 * What an agent run does not inherit from the room process: the markers by which CLIs tell there is no person at
 * the terminal. An agent's terminal is one a person watches and types into, wherever the room itself was started
 * (with CI=true, Gemini CLI 0.61 runs headless and exits 41 at its sign-in instead of asking).
 */
export const AGENT_UNSET_ENV = ['CI', 'GITHUB_ACTIONS'] as const;

export interface AgentClient extends StartPlan {
  id: AgentClientId;
  label: string;
}

export const AGENT_CLIENTS = {} as Record<AgentClientId, AgentClient>;
for (const c of STARTABLE) AGENT_CLIENTS[c.id] = { id: c.id, label: c.label, ...(c.start as StartPlan) };

/**
 * The first of `base`, `base-2`, `base-3`, … that `taken` does not hold: each run gets a participant of its
 * own, named after its client.
 */
export function uniqueParticipantName(base: string, taken: (name: string) => boolean, max = 10_000): string {
  if (!taken(base)) return base;
  for (let n = 2; n <= max; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
  throw new Error(`no free name after ${base}-${max}`);
}
