import { z } from 'zod';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import type { RoomInfo } from '../dto';

export const ROOM_METHODS = {
  room_info: {
    description:
      'Describe this Commonroom room: its markdown and database paths, schema version, runner version, counts, and its health (degraded while it cannot write, e.g. a full disk).',
    capability: 'read',
    input: lazily(() => z.object({}).strict()),
    mcpTool: true,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

export interface RoomOutputs {
  room_info: RoomInfo;
}
