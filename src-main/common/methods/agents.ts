import { z } from 'zod';
import { LIMITS } from '../limits';
import { AGENT_CLIENT_IDS, type AgentClientId } from '../agent-clients';
import { CAPABILITIES, type Capability } from '../capabilities';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import type { ShellView } from './shells';
import { participantName } from './participants';


/** One client as this machine has it: found on the PATH (with its version), or not, with how to install it. */
export interface AgentClientView {
  id: AgentClientId;
  label: string;
  program: string | null;
  path: string | null;
  version: string | null;
  install: string | null;
}

/** An agent the room started: its terminal (with its status) and its participant. */
export interface AgentRunView {
  shellId: string;
  client: AgentClientId;
  label: string;
  participant: string;
  version: string | null;
  cwd: string;
  startedAt: string;
  shell: ShellView;
  /** The handoff it was started on (agent_start with task), or null. */
  handoffId: string | null;
}

/**
 * An agent the room started earlier whose terminal is gone (stopped, or ended with a runner restart: shells
 * do not outlive the runner): its participant and history are kept; `again` starts it anew in the same folder.
 */
export interface EarlierAgentRun {
  participant: string;
  client: AgentClientId;
  cwd: string;
  version: string | null;
  startedAt: string;
  again: string;
}

/**
 * Agents started in the room: a client CLI in a terminal of the room's, connected for that run only, as a
 * participant of its own. Operator methods (ce agent, the Terminals screen): starting an agent makes a
 * participant and a process on the person's machine.
 */
export const AGENT_METHODS = {
  agent_clients: {
    description: 'The agent CLIs the room can start (Claude Code, Codex, Gemini CLI, opencode): where each is on the PATH and its version, or how to install it.',
    capability: 'operate',
    input: lazily(() => z.object({}).strict()),
    mcpTool: false,
    readOnly: true,
  },
  agent_start: {
    description:
      "Start an agent CLI in a new terminal of the room, connected to the room for that run only (the client's own per-run configuration; the token only in the run's environment). " +
      'It gets a participant of its own (named after the client: claude-code, claude-code-2, …) or reuses one named by participant (which gets a new token).',
    capability: 'operate',
    input: lazily(() => z
      .object({
        client: z.enum(AGENT_CLIENT_IDS).describe('claude-code, codex, gemini-cli, opencode, or command (with command)'),
        command: z.array(z.string().min(1).max(4096)).min(1).max(32).optional().describe('with client "command": the program and its arguments'),
        args: z.array(z.string().max(4096)).max(32).optional().describe("more arguments for the client (after the room's own)"),
        cwd: z.string().min(1).max(4096).optional().describe("the folder it works in (default: the room's folder, unless that is in Commonroom's data folder, as the default room's is: then give one)"),
        capabilities: z.array(z.enum(CAPABILITIES)).min(1).max(CAPABILITIES.length).optional().describe('what it may do (default read, write)'),
        participant: participantName().optional().describe('reuse this participant (it gets a new token; its old one stops)'),
        cols: z.number().int().min(20).max(1000).optional(),
        rows: z.number().int().min(5).max(500).optional(),
        task: z.string().min(1).max(LIMITS.maxHandoffSummaryChars).optional().describe('a task for it: a handoff from you to its participant, accepted for it, and its first prompt'),
        repo: z.string().min(1).max(4096).optional().describe('with task: the git repository the task gets a worktree of its own in (default: cwd, when cwd is in one); the agent starts in that worktree'),
        base: z.string().min(1).max(256).optional().describe("with task and a repository: the branch, tag or commit the work starts from (default: the branch checked out there)"),
      })
      .strict()),
    mcpTool: false,
  },
  agent_list: {
    description: 'The agents the room started that still have a terminal (their client, participant, folder and status), and the earlier ones whose terminal is gone, with how to start each again.',
    capability: 'operate',
    input: lazily(() => z.object({}).strict()),
    mcpTool: false,
    readOnly: true,
  },
  agent_stop: {
    description: "Stop an agent the room started: its terminal's process tree ends (SIGHUP, SIGTERM, SIGKILL); with revoke, its token stops too.",
    capability: 'operate',
    input: lazily(() => z.object({ shellId: z.string().min(1).max(64), revoke: z.boolean().optional() }).strict()),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;

export interface AgentOutputs {
  agent_clients: { clients: AgentClientView[] };
  agent_start: { agent: AgentRunView };
  agent_list: { agents: AgentRunView[]; earlier: EarlierAgentRun[] };
  agent_stop: { agent: AgentRunView; revoked: boolean };
}

export type { Capability };
