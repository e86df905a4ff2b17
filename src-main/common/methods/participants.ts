import { z } from 'zod';
import { CAPABILITIES } from '../capabilities';
import type { ParticipantCreated, ParticipantView } from '../dto';
import { LIMITS } from '../limits';
import type { MethodSpec } from '../method-spec';

const participantName = z
  .string()
  .min(1)
  .max(LIMITS.maxParticipantNameLength)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" or "-", starting with a letter or digit');

export const PARTICIPANT_METHODS = {
  participant_list: {
    description: 'List the participants of the room, revoked ones included.',
    capability: 'operate',
    input: z.object({}).strict(),
    mcpTool: false,
    readOnly: true,
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

export interface ParticipantOutputs {
  participant_list: { participants: ParticipantView[] };
  participant_add: ParticipantCreated;
  participant_revoke: { participant: ParticipantView; changed: boolean };
}
