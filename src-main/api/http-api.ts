import type http from 'node:http';
import { isMethodName } from '../common/contract';
import { ACT_AS_HEADER, type Caller } from '../common/dto';
import { toPublicError } from '../common/errors';
import type { DoorEngine } from '../engine/index';
import { sendJson } from '../net/http-json';
import { apiErrorBody, HTTP_STATUS } from './http-status';
import { handleWorkspaceTask } from './workspace-task';

/**
 * POST /api/<method> with a JSON object of arguments: the same contract methods as every other door,
 * for the CLI (changes while the room process runs) and the web UI. Answers {result} or {error:{code,message}}.
 */
export class ApiRoute {
  constructor(private readonly engine: DoorEngine) {}

  /** GET /workspace/task?taskId=…: the task record, for recovery after a gap (see workspace-task.ts). */
  handleWorkspaceTask(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller): Promise<void> {
    return handleWorkspaceTask(this.engine, req, res, caller);
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller, method: string, body: unknown): Promise<void> {
    if (req.method !== 'POST') {
      return sendJson(res, 405, apiErrorBody('INVALID_INPUT', 'use POST with a JSON object body'), { Allow: 'POST' });
    }
    if (!isMethodName(method)) {
      return sendJson(res, 404, apiErrorBody('NOT_FOUND', `unknown method ${JSON.stringify(method)}`));
    }
    const actAs = req.headers[ACT_AS_HEADER];
    try {
      // an operator may read or act with a named participant's rights (ce task --participant NAME)
      const as = typeof actAs === 'string' ? this.engine.participantAs(caller, actAs) : caller;
      const result = await this.engine.call(as, method, body ?? {});
      sendJson(res, 200, { result });
    } catch (error) {
      const pub = toPublicError(error);
      if (pub.code === 'INTERNAL') console.error(`[api] ${method} failed:`, error);
      sendJson(res, HTTP_STATUS[pub.code], { error: pub });
    }
  }
}
