import { z } from 'zod';
import { LIMITS } from '../limits';
import { AGENT_CLIENT_IDS, type AgentClientId } from '../agent-clients';
import { CAPABILITIES, type Capability } from '../capabilities';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import type { ShellView } from './shells';
import type { HandoffView } from '../handoff-dto';
import { participantName } from './participants';
import { usageLimits } from './spend';
import { hostAlias } from './hosts';


/** One client as this machine has it: found on the PATH (with its version), or not, with how to install it. */
export interface AgentClientView {
  id: AgentClientId;
  label: string;
  program: string | null;
  path: string | null;
  version: string | null;
  install: string | null;
}

/** What the room does when an agent stalls: tell the person, interrupt it (its client's key), or restart it resuming its conversation. */
export const STALL_POLICIES = ['tell', 'interrupt', 'restart'] as const;
export type StallPolicy = (typeof STALL_POLICIES)[number];
/** What the room does when an agent's client stops at its usage limit: type its continue at the reset, ask the person, or leave it. */
export const LIMIT_POLICIES = ['resume', 'ask', 'leave'] as const;
export type LimitPolicy = (typeof LIMIT_POLICIES)[number];

/** An agent's watch: its policies, how long quiet reads stalled, and whether it is stalled or limited now. */
export interface AgentWatchView {
  onStall: StallPolicy;
  stallMs: number;
  onLimit: LimitPolicy;
  /** Stalled now: since when it reads stalled, and since when it was quiet. */
  stalled: { since: string; quietSince: string } | null;
  /** Limited now: the client's words, its reset time (null: it showed none), and when the room types its continue (null: it will not). */
  limited: { since: string; text: string; until: string | null; resumeAt: string | null } | null;
  /** The reset time while limited (the countdown), else null. */
  limitedUntil: string | null;
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
  /** The host it runs on (agent_start with host: docs/hosts.md); absent: this machine. */
  host?: string;
  /**
   * Its handoff is still being worked on, its client sits idle at its prompt, and its worktree's branch has commits
   * past the base: "ready for review?" (the person may complete it for the agent: agent_complete). Null otherwise.
   */
  review: { handoffId: string; commits: number; head: string } | null;
  /** Stalled or limited, and the person's policies for each. */
  watch: AgentWatchView;
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
  /** A "command" run's program and arguments, while this room process runs (to start it again the same way). */
  command?: string[];
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
        continues: z.string().min(1).max(64).optional().describe("with task: a rejected handoff whose worktree the task goes on in (a follow-up: its agent, participant defaults to the one that did it, in the same worktree)"),
        host: hostAlias().optional().describe("start it on this host of the room (an SSH alias the person added): its client runs there, found on the host's login PATH, reaching the room through a forward of the person's SSH connection; cwd is then a folder on the host (default: its account's home)"),
        hostRepo: z.string().min(1).max(4096).optional().describe("with task, repo and host: the absolute path of the host's own clone of repo, where the task's worktree is made (the review fetches the work into repo here)"),
        resume: z.boolean().optional().describe("go on with the client's most recent conversation in that folder where the client can (Claude Code --continue, Codex resume --last, Gemini CLI --resume latest, opencode --continue)"),
        envelope: z
          .object(usageLimits)
          .strict()
          .refine((e) => Object.keys(e).length > 0, 'an envelope needs at least one limit: maxWallMs, maxIdleMs, maxTokens or maxCostUsd')
          .optional()
          .describe('a ceiling on this run from its first moment (as envelope_set with scope agent on its terminal): at a limit it is interrupted, stopped, and the inbox says so'),
        ...watchInput(),
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
  agent_complete: {
    description:
      "Complete the handoff an agent the room started works on, for it (its client sits idle with commits in its worktree: ready for review): the result is the person's summary, the change is captured as handoff_complete captures it, and the agent's terminal in the worktree ends.",
    capability: 'operate',
    input: lazily(() => z.object({ handoffId: z.string().min(1).max(64), result: z.string().min(1).max(LIMITS.maxHandoffResultBytes) }).strict()),
    mcpTool: false,
  },
  agent_watch: {
    description:
      "Change a running agent's watch: how long its terminal, CPU and process tree may be quiet while it works before it reads stalled (stallMinutes), what the room does then " +
      '(onStall: tell, interrupt, restart), and what it does when its client stops at a usage limit (onLimit: resume at the reset, ask, leave).',
    capability: 'operate',
    input: lazily(() => z.object({ shellId: z.string().min(1).max(64), ...watchInput() }).strict()),
    mcpTool: false,
  },
  agent_watch_defaults: {
    description: "The room's defaults for agents started from now on (each agent_start may override them): stallMinutes (default 10), onStall (default tell), onLimit (default ask). With none given, answers them.",
    capability: 'operate',
    input: lazily(() => z.object(watchInput()).strict()),
    mcpTool: false,
  },
  agent_limit: {
    description:
      "An agent stopped at its usage limit: resume it at the reset (the room types its client's continue then), resume it now, or cancel the resume the room was counting down to (it is left as it is).",
    capability: 'operate',
    input: lazily(() => z.object({ shellId: z.string().min(1).max(64), action: z.enum(['resume_at_reset', 'resume_now', 'cancel']) }).strict()),
    mcpTool: false,
  },
  agent_stop: {
    description: "Stop an agent the room started: its terminal's process tree ends (SIGHUP, SIGTERM, SIGKILL); with revoke, its token stops too.",
    capability: 'operate',
    input: lazily(() => z.object({ shellId: z.string().min(1).max(64), revoke: z.boolean().optional() }).strict()),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;

/** The watch settings agent_start, agent_watch and agent_watch_defaults take. */
function watchInput() {
  return {
    stallMinutes: z.number().min(0.01).max(24 * 60).optional().describe('how long quiet (terminal, CPU, process tree) while it works reads stalled, in minutes (default: the room\'s, 10)'),
    onStall: z.enum(STALL_POLICIES).optional().describe('when it stalls: tell (the default: a notification), interrupt (its client\'s key: Esc), restart (resuming its conversation)'),
    onLimit: z.enum(LIMIT_POLICIES).optional().describe('when its client stops at a usage limit: resume (type its continue at the reset), ask (the default: a notification, the person decides), leave'),
  };
}

export interface AgentOutputs {
  agent_clients: { clients: AgentClientView[] };
  agent_start: { agent: AgentRunView };
  agent_list: { agents: AgentRunView[]; earlier: EarlierAgentRun[] };
  agent_stop: { agent: AgentRunView; revoked: boolean };
  agent_watch: { agent: AgentRunView };
  agent_watch_defaults: { stallMs: number; onStall: StallPolicy; onLimit: LimitPolicy };
  agent_limit: { agent: AgentRunView };
  agent_complete: { handoff: HandoffView };
}

export type { Capability };
