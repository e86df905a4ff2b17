import type { MethodInput, MethodName, MethodOutputs } from '../common/contract';
import { ACT_AS_HEADER } from '../common/dto';
import { RoomError, ERROR_CODES, type ErrorCode } from '../common/errors';
import { Engine, findRunningRoom, resolvePaths, Room, type DoorEngine, type Paths } from '../engine/index';

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
  // an existing room only: a mistyped --room must not become a new room with its own operator token
  const engine: DoorEngine = await Engine.start(Room.open({ markdown: roomArg, paths, mustExist: true }));
  try {
    return await engine.call(engine.operator(), method, input);
  } finally {
    await engine.close();
  }
}

/**
 * How the CLI reads a room: through the running room process when one serves it, else through an engine
 * opened read-only over the room file (no lock, nothing started, nothing written). Either way the read is a
 * contract method with its capability and input checks; `participant` reads with that participant's rights.
 */
export async function readAs<M extends MethodName>(
  roomArg: string | undefined,
  method: M,
  input: MethodInput<M>,
  options: { participant?: string | undefined; paths?: Paths } = {},
): Promise<MethodOutputs[M]> {
  const paths = options.paths ?? resolvePaths();
  const running = findRunningRoom(roomArg, paths);
  if (running) {
    try {
      return await callOverHttp(running.endpoint, running.token, method, input, options.participant);
    } catch (error) {
      if (!(error instanceof ConnectionRefused)) throw error;
    }
  }
  const engine: DoorEngine = await Engine.start(Room.openReadOnly({ markdown: roomArg, paths }));
  try {
    const operator = engine.operator();
    const caller = options.participant === undefined ? operator : engine.participantAs(operator, options.participant);
    return await engine.call(caller, method, input);
  } finally {
    await engine.close();
  }
}

/**
 * A reader held for the length of a command that reads many times (following a log): the running room process
 * over HTTP when one serves the room, else one read-only engine over the room file, opened once. `signal`
 * abandons a long wait (HTTP only: an in-process wait ends at its own deadline).
 */
export interface RoomReaderSession {
  call<M extends MethodName>(method: M, input: MethodInput<M>, signal?: AbortSignal): Promise<MethodOutputs[M]>;
  /** Whether it talks to a room process (live changes wake its waits) rather than to the file. */
  readonly live: boolean;
  close(): Promise<void>;
}

export async function openReaderSession(roomArg: string | undefined, paths: Paths = resolvePaths()): Promise<RoomReaderSession> {
  const running = findRunningRoom(roomArg, paths);
  if (running) {
    return {
      live: true,
      call: (method, input, signal) => callOverHttp(running.endpoint, running.token, method, input, undefined, signal),
      close: async () => undefined,
    };
  }
  const engine: DoorEngine = await Engine.start(Room.openReadOnly({ markdown: roomArg, paths }));
  return {
    live: false,
    call: (method, input) => engine.call(engine.operator(), method, input),
    close: () => engine.close(),
  };
}

/** Whether a live room process serves the room (a room that does not exist yet has none). */
export function roomIsServed(roomArg: string | undefined, paths: Paths = resolvePaths()): boolean {
  return findRunningRoom(roomArg, paths) !== null;
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

class ConnectionRefused extends Error {
  constructor() {
    super("the room process recorded for this room does not answer (it ended): run the command again");
  }
}

async function callOverHttp<M extends MethodName>(endpoint: string, token: string, method: M, input: unknown, participant?: string, signal?: AbortSignal): Promise<MethodOutputs[M]> {
  let response: Response;
  try {
    response = await fetch(new URL(`/api/${method}`, endpoint), {
      method: 'POST',
      ...(signal ? { signal } : {}),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(participant === undefined ? {} : { [ACT_AS_HEADER]: participant }) },
      body: JSON.stringify(input),
    });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') throw new ConnectionRefused();
    if (signal?.aborted) throw error;
    throw new RoomError('UNAVAILABLE', `the room process at ${endpoint} did not answer: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => null)) as { result?: unknown; error?: { code?: string; message?: string } } | null;
  if (response.ok && body && 'result' in body) return body.result as MethodOutputs[M];
  const code = (ERROR_CODES as readonly string[]).includes(body?.error?.code ?? '') ? (body?.error?.code as ErrorCode) : 'INTERNAL';
  throw new RoomError(code, body?.error?.message ?? `the room process answered HTTP ${response.status}`);
}
