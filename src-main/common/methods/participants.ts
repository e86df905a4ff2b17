import { z } from 'zod';
import { CAPABILITIES } from '../capabilities';
import type { ParticipantCreated, ParticipantView } from '../dto';
import { LIMITS } from '../limits';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';

/** A participant's name as every method takes it. */
export const participantName = lazily(() =>
  z
    .string()
    .min(1)
    .max(LIMITS.maxParticipantNameLength)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" or "-", starting with a letter or digit'),
);

/** The most extra writable folders one participant may have, and the longest path taken. */
export const MAX_WRITABLE_FOLDERS = 32;
const MAX_FOLDER_PATH = 4096;
/** A folder as participant_folders takes it (checked further by the engine: absolute, existing, allowed). */
const folderPath = lazily(() =>
  z
    .string()
    .min(1)
    .max(MAX_FOLDER_PATH)
    .refine((p) => !p.includes('\0'), { message: 'a folder path cannot contain a NUL character' }));

export const PARTICIPANT_METHODS = {
  participant_list: {
    description: 'List the participants of the room, revoked ones included.',
    capability: 'operate',
    input: lazily(() => z.object({}).strict()),
    mcpTool: false,
    readOnly: true,
  },
  participant_add: {
    description: 'Add a participant (an agent) and issue its bearer token, shown once.',
    capability: 'operate',
    input: lazily(() => z
      .object({
        name: participantName(),
        capabilities: z.array(z.enum(CAPABILITIES)).min(1).max(CAPABILITIES.length),
      })
      .strict()),
    mcpTool: false,
  },
  participant_activity: {
    description: 'Which participants are connected now (open MCP sessions and listen streams) and the last call each made since the runner started.',
    capability: 'operate',
    input: lazily(() => z.object({}).strict()),
    mcpTool: false,
    readOnly: true,
  },
  participant_revoke: {
    description: 'Revoke a participant: its token stops working at once.',
    capability: 'operate',
    input: lazily(() => z.object({ name: participantName() }).strict()),
    mcpTool: false,
  },
  participant_session_close: {
    description: "Close one of a participant's open MCP sessions (see participant_activity): its client gets \"session not found\" and starts a new one.",
    capability: 'operate',
    input: lazily(() => z.object({ name: participantName(), sessionId: z.string().min(1).max(128) }).strict()),
    mcpTool: false,
  },
  participant_rotate: {
    description:
      "Give a participant a new bearer token (shown once); its old token stops working at once and its requests in flight end, as a revocation ends them. Rotating the operator rewrites the operator token file and signs every browser UI session out.",
    capability: 'operate',
    input: lazily(() => z.object({ name: participantName() }).strict()),
    mcpTool: false,
  },
  participant_folders: {
    description:
      "List, add or remove the folders an agent's shells and graph stages may write besides their working folder, temp folders and tool caches (the sandbox keeps the rest read-only). Only the operator adds one; removing takes operate. A folder is absolute, exists, and is neither / nor your home folder itself, nor in or around Commonroom's config or data folder or a room's state folder.",
    capability: 'operate',
    input: lazily(() =>
      z
        .object({ name: participantName(), add: folderPath().optional(), remove: folderPath().optional() })
        .strict()
        .refine((v) => v.add === undefined || v.remove === undefined, { message: 'give add or remove, not both (one change per call)' })),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;


export interface ParticipantOutputs {
  participant_list: { participants: ParticipantView[] };
  participant_add: ParticipantCreated;
  participant_revoke: { participant: ParticipantView; changed: boolean };
  participant_rotate: ParticipantCreated;
  participant_session_close: { closed: boolean };
  participant_activity: { participants: ParticipantPresence[] };
  participant_folders: { participant: ParticipantView; folders: string[]; changed: boolean };
}

/**
 * A participant's live presence (volatile, in memory): its open MCP connections (2025 sessions and listen
 * streams; a 2026 client that only makes calls holds none between them) and its last call through the MCP door.
 */
/** One open 2025-era MCP session of a participant, as its client introduced itself at initialize. */
export interface SessionView {
  id: string;
  /** `clientInfo` from initialize ("claude-code 2.0.14"), null when it gave none. */
  client: string | null;
  openedAt: string;
  lastUsedAt: string;
}

export interface ParticipantPresence {
  name: string;
  connections: number;
  /** Its open 2025-era sessions, oldest first (listen streams count in `connections` only). */
  sessions: SessionView[];
  /** A tool's name for tools/call, else the protocol method (e.g. "tasks/get"); null: none since the runner started. */
  lastCall: string | null;
  lastCallAt: string | null;
  /** Listen streams open now (a live connection, unlike a 2025 session, which is only a promise to come back). */
  streams: number;
  /** Its last sign of life since the runner started: a connection opened or closed, a request, a call; null: none. */
  lastSeenAt: string | null;
  /** When its last connection closed; null while one is open (or before any). */
  disconnectedAt: string | null;
}
