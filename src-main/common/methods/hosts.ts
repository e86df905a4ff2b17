import { z } from 'zod';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';

/** The most hosts one room lists. */
export const MAX_HOSTS = 64;

/**
 * A host as the room names it: an alias of the person's SSH configuration (`Host devbox` in ~/.ssh/config),
 * never an address typed here. No leading "-" (it would read as an option to ssh), no spaces or wildcards.
 */
export const hostAlias = lazily(() =>
  z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_][A-Za-z0-9._@-]*$/, 'an SSH host alias: letters, digits, ".", "_", "@" or "-", not starting with "-"'));

export const HOST_METHODS = {
  host_list: {
    description:
      "The room's hosts (aliases of the person's SSH configuration that work may be placed on), each with whether agents may use it and its last check; and the aliases of the SSH configuration not added yet.",
    capability: 'operate',
    input: lazily(() => z.object({}).strict()),
    mcpTool: false,
    readOnly: true,
  },
  host_add: {
    description:
      "Add a host by its SSH alias (a `Host` entry of the person's ~/.ssh/config; nothing is copied from it). Only the operator adds one. agents: whether agents may place work on it (default true).",
    capability: 'operate',
    input: lazily(() => z.object({ alias: hostAlias(), agents: z.boolean().optional() }).strict()),
    mcpTool: false,
  },
  host_check: {
    description:
      "Connect to a host over SSH (BatchMode: the person's keys and agent, never a password prompt) and probe what work there needs: OS and architecture, Node, git, Commonroom and each agent CLI on the host's login PATH. Says what is missing and how to install it. Only the operator checks.",
    capability: 'operate',
    input: lazily(() => z.object({ alias: hostAlias() }).strict()),
    mcpTool: false,
  },
  host_remove: {
    description: 'Remove a host from the room: no new work is placed on it. Nothing on the host is touched.',
    capability: 'operate',
    input: lazily(() => z.object({ alias: hostAlias() }).strict()),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;

/** One program looked for on a host's login PATH. */
export interface HostTool {
  /** "node", "git", "commonroom", or an agent client's id ("claude-code"). */
  name: string;
  /** The command looked for ("node", "claude"). */
  command: string;
  /** Its full path on the host; null: not found. */
  path: string | null;
  /** The first line of its --version; null when not found or it printed none. */
  version: string | null;
}

/** What a check found. */
export interface HostCheck {
  at: string;
  /** It connected and the probe ran. */
  reachable: boolean;
  /** Connected, and everything the room needs there is present. */
  ready: boolean;
  /** Why it could not connect, with what to do; null when it connected. */
  error: string | null;
  os: string | null;
  arch: string | null;
  /** The host's login PATH as the probe saw it. */
  path: string | null;
  tools: HostTool[];
  /** Each thing missing or too old, with how to fix it, in words; empty when ready. */
  missing: string[];
  /** How long the check took, in ms. */
  tookMs: number;
}

export interface HostView {
  alias: string;
  /** Agents may place work on it (the person's allow-list). */
  agents: boolean;
  addedAt: string;
  addedBy: string;
  /** The alias is still a `Host` entry of the SSH configuration. */
  configured: boolean;
  lastCheck: HostCheck | null;
  /**
   * The room's link to the host's node, when the room used it since it started: reachable or not, since when,
   * and why not (ssh's last line). Unreachable: its shells and stages go on there, unknown here until it is back.
   */
  link?: { reachable: boolean; since: string; error: string | null };
}

export interface HostOutputs {
  host_list: { hosts: HostView[]; available: string[]; sshConfig: string };
  host_add: { host: HostView; changed: boolean };
  host_check: { host: HostView; check: HostCheck };
  host_remove: { removed: boolean };
}
