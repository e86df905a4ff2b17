import type { RoomInfo } from '../../common/dto';
import { RUNNER_VERSION } from '../../common/version';
import type { EngineContext, Feature } from './feature';

/** room_info: what the room is, for every door. */
export function roomFeature(ctx: EngineContext): Feature<'room_info'> {
  return {
    name: 'room',
    handlers: {
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
