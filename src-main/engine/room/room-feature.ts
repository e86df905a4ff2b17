import type { RoomInfo } from '../../common/dto';
import { RUNNER_VERSION } from '../../common/version';
import type { EngineContext, Feature } from './feature';
import { historyPage, historyStatement, type EventRule } from './room-history';

/**
 * room_info: what the room is, for every door; and the room's history (`workspace_history`): its events, each
 * shown to whom its feature's rule says (`rules`, one per feature that records events).
 */
export function roomFeature(ctx: EngineContext, rules: readonly EventRule[] = []): Feature<'room_info' | 'workspace_history'> {
  const statement = historyStatement(rules);
  return {
    name: 'room',
    handlers: {
      workspace_history: (caller, input) => historyPage(ctx.room.db, statement, caller, input),
      room_info: (): RoomInfo => {
        const { room } = ctx;
        return {
          room: {
            markdownPath: room.location.markdownPath,
            databasePath: room.location.databasePath,
            id: room.id,
            createdAt: room.createdAt,
          },
          schemaVersion: room.schemaVersion,
          runnerVersion: RUNNER_VERSION,
          counts: { participants: room.participants.countLive(), events: room.events.count() },
          health: ctx.health.view(),
          sandbox: { kind: ctx.sandbox.state.kind, message: ctx.sandbox.describe() },
        };
      },
    },
  };
}
