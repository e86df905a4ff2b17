import { RoomError } from '../../common/errors';
import { resolvePaths, type Paths } from '../core/config';
import { operatorTokenPath } from '../core/room-paths';
import { readPrivateFile } from '../core/fs-safe';
import { RoomReader } from './room';

/** Where a live room process serves a room, and the operator token to call it with. */
export interface RunningRoomEndpoint {
  endpoint: string;
  token: string;
}

/**
 * The room process serving a room, or null when none does (or the room does not exist yet). Read from the
 * holder record without taking the lock; the token comes from the operator's private token file.
 */
export function findRunningRoom(roomArg: string | undefined, paths: Paths = resolvePaths()): RunningRoomEndpoint | null {
  let found: { endpoint: string; roomId: string | null } | null = null;
  try {
    const reader = RoomReader.open({ markdown: roomArg, paths });
    try {
      const running = reader.runningProcess();
      found = running?.endpoint ? { endpoint: running.endpoint, roomId: reader.roomId } : null;
    } finally {
      reader.close();
    }
  } catch (error) {
    if (error instanceof RoomError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
  if (!found || found.roomId === null) return null;
  const tokenFile = operatorTokenPath(paths, found.roomId);
  const token = readPrivateFile(tokenFile)?.trim();
  if (!token) {
    throw new RoomError('UNAUTHENTICATED', `the room is running but its operator token file ${tokenFile} is missing: restart the room process`);
  }
  return { endpoint: found.endpoint, token };
}
