import { z } from 'zod';
import { LIMITS } from './limits';
import type { Capability } from './capabilities';
import { CAPABILITIES } from './capabilities';
import type { ParticipantCreated, ParticipantView, RoomInfo } from './dto';

/**
 * The one method table. Every door (MCP tools, the HTTP API the CLI and web UI use, Electron IPC)
 * is generated from it: a later capability adds a method here and implements it in the engine.
 */
export interface MethodSpec<I extends z.ZodType = z.ZodType> {
  description: string;
  /** The capability a caller needs. */
  capability: Capability;
  input: I;
  /** Offered to agents as an MCP tool. */
  mcpTool: boolean;
}

const participantName = z
  .string()
  .min(1)
  .max(LIMITS.maxParticipantNameLength)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" or "-", starting with a letter or digit');

export const CONTRACT = {
  room_info: {
    description:
      'Describe this Commonroom room: its markdown and database paths, schema version, runner version and counts.',
    capability: 'read',
    input: z.object({}).strict(),
    mcpTool: true,
  },
  participant_list: {
    description: 'List the participants of the room, revoked ones included.',
    capability: 'operate',
    input: z.object({}).strict(),
    mcpTool: false,
  },
  participant_add: {
    description: 'Add a participant (an agent) and issue its bearer token, shown once.',
    capability: 'operate',
    input: z
      .object({
        name: participantName,
        capabilities: z.array(z.enum(CAPABILITIES)).min(1).max(CAPABILITIES.length),
      })
      .strict(),
    mcpTool: false,
  },
  participant_revoke: {
    description: 'Revoke a participant: its token stops working at once.',
    capability: 'operate',
    input: z.object({ name: participantName }).strict(),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;

export type Contract = typeof CONTRACT;
export type MethodName = keyof Contract;
export type MethodInput<M extends MethodName> = z.infer<Contract[M]['input']>;

/** What each method answers; the engine implements exactly this. */
export interface MethodOutputs {
  room_info: RoomInfo;
  participant_list: { participants: ParticipantView[] };
  participant_add: ParticipantCreated;
  participant_revoke: { participant: ParticipantView; changed: boolean };
}

export const METHOD_NAMES = Object.keys(CONTRACT) as MethodName[];

export function isMethodName(value: string): value is MethodName {
  return Object.prototype.hasOwnProperty.call(CONTRACT, value);
}
