import type { MethodInput, MethodName, MethodOutputs } from '../common/contract';
import { RoomError, ERROR_CODES, type ErrorCode } from '../common/errors';
import { operatorTokenPath, resolvePaths, type Paths } from '../engine/config';
import { Engine } from '../engine/engine';
import { readPrivateFile } from '../engine/fs-safe';
import { Room, RoomReader } from '../engine/store/room';

/**
 * How the CLI changes a room: through the running room process when one holds it (HTTP API, operator token),
 * else by opening the room as its writer for the length of one command. Both end in the same engine method.
 */
export async function callAsOperator<M extends MethodName>(
  roomArg: string | undefined,
  method: M,
  input: MethodInput<M>,
  paths: Paths = resolvePaths(),
): Promise<MethodOutputs[M]> {
  const running = findRunningRoom(roomArg, paths);
  if (running) {
    try {
      return await callOverHttp(running.endpoint, running.token, method, input);
    } catch (error) {
      if (!(error instanceof ConnectionRefused)) throw error;
      // the holder record was stale (the process is gone): fall through and open the room ourselves
    }
  }
  const engine = await Engine.start(Room.open({ markdown: roomArg, paths }));
  try {
    return await engine.call(engine.operator(), method, input);
  } finally {
    await engine.close();
  }
}

/** Calls the running room process as the operator, or answers null when no process serves the room. */
export async function callRunningRoomAsOperator<M extends MethodName>(
  roomArg: string | undefined,
  method: M,
  input: MethodInput<M>,
  paths: Paths = resolvePaths(),
): Promise<MethodOutputs[M] | null> {
  const running = findRunningRoom(roomArg, paths);
  if (!running) return null;
  try {
    return await callOverHttp(running.endpoint, running.token, method, input);
  } catch (error) {
    if (error instanceof ConnectionRefused) return null;
    throw error;
  }
}

/** Reads a room without taking it: listings work while the app runs. */
export function withReader<T>(roomArg: string | undefined, fn: (reader: RoomReader) => T, paths: Paths = resolvePaths()): T {
  const reader = RoomReader.open({ markdown: roomArg, paths });
  try {
    return fn(reader);
  } finally {
    reader.close();
  }
}

function findRunningRoom(roomArg: string | undefined, paths: Paths): { endpoint: string; token: string } | null {
  let found: { endpoint: string; roomId: string | null } | null = null;
  try {
    found = withReader(
      roomArg,
      (reader) => {
        const running = reader.runningProcess();
        return running?.endpoint ? { endpoint: running.endpoint, roomId: reader.roomId } : null;
      },
      paths,
    );
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

class ConnectionRefused extends Error {}

async function callOverHttp<M extends MethodName>(endpoint: string, token: string, method: M, input: unknown): Promise<MethodOutputs[M]> {
  let response: Response;
  try {
    response = await fetch(new URL(`/api/${method}`, endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(input),
    });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') throw new ConnectionRefused();
    throw new RoomError('UNAVAILABLE', `the room process at ${endpoint} did not answer: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => null)) as { result?: unknown; error?: { code?: string; message?: string } } | null;
  if (response.ok && body && 'result' in body) return body.result as MethodOutputs[M];
  const code = (ERROR_CODES as readonly string[]).includes(body?.error?.code ?? '') ? (body?.error?.code as ErrorCode) : 'INTERNAL';
  throw new RoomError(code, body?.error?.message ?? `the room process answered HTTP ${response.status}`);
}
