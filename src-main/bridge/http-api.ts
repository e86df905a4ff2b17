import type http from 'node:http';
import { isMethodName } from '../common/contract';
import type { Caller } from '../common/dto';
import { toPublicError, type ErrorCode } from '../common/errors';
import type { Engine } from '../engine/engine';
import { sendJson } from '../net/http-json';

/** HTTP status for each engine error code: doors map codes, never messages. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 429,
  ROOM_LOCKED: 409,
  ROOM_UNSAFE: 500,
  ROOM_TOO_NEW: 500,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * POST /api/<method> with a JSON object of arguments: the same contract methods as every other door,
 * for the CLI (changes while the room process runs) and the web UI. Answers {result} or {error:{code,message}}.
 */
export class ApiRoute {
  constructor(private readonly engine: Engine) {}

  async handle(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller, method: string, body: unknown): Promise<void> {
    if (req.method !== 'POST') {
      return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: 'use POST with a JSON object body' } }, { Allow: 'POST' });
    }
    if (!isMethodName(method)) {
      return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `unknown method ${JSON.stringify(method)}` } });
    }
    try {
      const result = await this.engine.call(caller, method, body ?? {});
      sendJson(res, 200, { result });
    } catch (error) {
      const pub = toPublicError(error);
      if (pub.code === 'INTERNAL') console.error(`[api] ${method} failed:`, error);
      sendJson(res, HTTP_STATUS[pub.code], { error: pub });
    }
  }
}
