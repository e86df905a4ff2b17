import type { Capability } from '../../src-main/common/capabilities';
import type { Caller } from '../../src-main/common/dto';
import { Engine, Room } from '../../src-main/engine/index';
import type { TestHome } from './env';

/**
 * Fills `home`'s room file in this process, with no room process running (as `ce` then finds it): adds each
 * participant with its capabilities, runs `seed` with the operator and each participant as callers, and closes
 * the room again, whatever `seed` does.
 */
export async function seedRoomFile<N extends string, T>(
  home: TestHome,
  participants: Record<N, Capability[]>,
  seed: (engine: Engine, as: Record<N | 'op', Caller>) => Promise<T>,
): Promise<T> {
  const engine = await Engine.start(Room.open({ paths: home.paths }));
  try {
    const op = engine.operator();
    const as: Record<string, Caller> = { op };
    for (const [name, capabilities] of Object.entries<Capability[]>(participants)) {
      await engine.call(op, 'participant_add', { name, capabilities });
      as[name] = engine.participantAs(op, name);
    }
    return await seed(engine, as as Record<N | 'op', Caller>);
  } finally {
    await engine.close();
  }
}
