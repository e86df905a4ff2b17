import type http from 'node:http';
import { ACT_AS_HEADER, type Caller } from '../common/dto';
import { toPublicError } from '../common/errors';
import type { DoorEngine } from '../engine/index';
import { sendJson } from '../net/http-json';
import { apiErrorBody, HTTP_STATUS } from './http-status';

export const WORKSPACE_TASK_PATH = '/workspace/task';
const MAX_ID_CHARS = 64;

/**
 * GET /workspace/task?taskId=<id>: seed 001's recovery path. After a gap (a dropped listen stream, a restarted
 * runner) a client reads the task record here, as the authority: the same engine method as `ce task` and the
 * API's task_get (tasks/get over MCP reads the same store). Bearer auth like every door; a task the caller may
 * not see and one that does not exist are the same 404. Answers {result:{task}} or {error:{code,message}}.
 */
export async function handleWorkspaceTask(engine: DoorEngine, req: http.IncomingMessage, res: http.ServerResponse, caller: Caller): Promise<void> {
  if (req.method !== 'GET') return sendJson(res, 405, apiErrorBody('INVALID_INPUT', `use GET ${WORKSPACE_TASK_PATH}?taskId=<task id>`), { Allow: 'GET' });
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  const id = query.get('taskId') ?? query.get('id');
  if (!id || id.length > MAX_ID_CHARS) {
    return sendJson(res, HTTP_STATUS.INVALID_INPUT, apiErrorBody('INVALID_INPUT', `name the task: GET ${WORKSPACE_TASK_PATH}?taskId=<task id> (at most ${MAX_ID_CHARS} characters)`));
  }
  try {
    const actAs = req.headers[ACT_AS_HEADER];
    const as = typeof actAs === 'string' ? engine.participantAs(caller, actAs) : caller;
    sendJson(res, 200, { result: await engine.call(as, 'task_get', { taskId: id }) });
  } catch (error) {
    const pub = toPublicError(error);
    if (pub.code === 'INTERNAL') console.error(`[api] ${WORKSPACE_TASK_PATH} failed:`, error);
    sendJson(res, HTTP_STATUS[pub.code], { error: pub });
  }
}
