import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server';
import { CONTRACT, isMethodName, type MethodName, type MethodSpec } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { toPublicError } from '../../common/errors';
import { RUNNER_VERSION } from '../../common/version';
import { toolSurface } from '../../common/tool-surface';
import type { DoorEngine } from '../../engine/index';
import type { TaskRecord } from '../../common/task-record';
import type { ExtraTool, TaskSupport } from './extra-tools';
import { enforceCapabilities } from './method-capabilities';
import { registerResourceHandlers } from './resources';
import { noteCreatedTask, registerLegacyTaskHandlers } from '../tasks/tasks-2025';
import { registerModernTaskHandlers } from '../tasks/tasks-2026';
import { toTaskV1, toTaskV2 } from '../tasks/task-wire';
import { followGraphProgress } from '../tasks/task-progress';
import { gateTasksCapability, requireTasksVersion, sessionServesTasks } from '../transport/versions-2025';
import { splicesOf, type TextSplices } from '../splices/text-splices';
import { answerText, compactAnswer } from './answers';
import { declaresTasksExtension, missingTasksExtension, TASKS_EXTENSION } from '../tasks/tasks-extension';

export const SERVER_INFO = { name: 'commonroom', version: RUNNER_VERSION } as const;

const INSTRUCTIONS =
  'Commonroom is a local runner shared by agents and the person at the desktop. ' +
  'Call room_info to see the room. Every tool answers structured content (the authority; fields that would be null or empty are left out) ' +
  'and a short text summary of it with the ids and what to call next. ' +
  'Lists and logs page alike: pass the nextCursor of one answer as cursor to the next.';

type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** JSON Schema for a method's input, generated once from its zod schema. */
const inputSchemas = new Map<MethodName, JsonSchemaObject>();
function inputSchemaOf(method: MethodName): JsonSchemaObject {
  let schema = inputSchemas.get(method);
  if (!schema) {
    const generated = z.toJSONSchema(CONTRACT[method].input(), { target: 'draft-2020-12' }) as Record<string, unknown>;
    delete generated.$schema;
    schema = { ...generated, type: 'object' };
    inputSchemas.set(method, schema);
  }
  return schema;
}

/** A method's outputSchema (what its structuredContent holds), generated once from the contract's surface table. */
const outputSchemas = new Map<MethodName, JsonSchemaObject>();
function outputSchemaOf(method: MethodName): JsonSchemaObject {
  let schema = outputSchemas.get(method);
  if (!schema) {
    const generated = z.toJSONSchema(toolSurface()[method].output, { target: 'draft-2020-12' }) as Record<string, unknown>;
    delete generated.$schema;
    schema = { ...generated, type: 'object' };
    outputSchemas.set(method, schema);
  }
  return schema;
}

/** MCP tool annotations from the contract's hints (a client may ask the person before a destructive call). */
function annotationsOf(method: MethodName) {
  const { hints } = toolSurface()[method];
  return { readOnlyHint: hints.readOnly, destructiveHint: hints.destructive, idempotentHint: hints.idempotent, openWorldHint: hints.openWorld };
}

/** The MCP tools a caller sees: contract methods offered as tools that its capabilities allow. */
export function toolsFor(engine: DoorEngine, caller: Caller): MethodName[] {
  return engine.methodsFor(caller).filter((m) => CONTRACT[m].mcpTool);
}

/** One tool as both eras see it: a contract method, or a tool registered besides them (test fixtures only). */
type ResolvedTool =
  | { kind: 'method'; name: MethodName; spec: MethodSpec; support: TaskSupport }
  | { kind: 'extra'; tool: ExtraTool; support: TaskSupport };

function resolveTool(engine: DoorEngine, caller: Caller, name: string, extras: readonly ExtraTool[]): ResolvedTool | null {
  if (isMethodName(name) && CONTRACT[name].mcpTool && toolsFor(engine, caller).includes(name)) {
    const spec = CONTRACT[name] as MethodSpec;
    return { kind: 'method', name, spec, support: spec.task?.support ?? 'forbidden' };
  }
  const extra = extras.find((t) => t.name === name);
  return extra ? { kind: 'extra', tool: extra, support: extra.taskSupport ?? 'forbidden' } : null;
}

/**
 * The structured answer (silent fields left out below its top level) and a text summary of it for clients
 * that hand the model only text (mcp/surface/answers.ts). With `splices`, its large strings are held there and
 * written into the answer's bytes after the SDK.
 */
function textResult(method: MethodName, result: Record<string, unknown>, splices?: TextSplices) {
  const sent = compactAnswer(splices ? splices.holdIn(result) : result);
  return { content: [{ type: 'text' as const, text: answerText(method, sent) }], structuredContent: sent };
}

/** Runs a tool as an ordinary request/response call. DoorEngine refusals become tool errors the model can read. */
async function callPlain(engine: DoorEngine, caller: Caller, tool: ResolvedTool, args: Record<string, unknown>, ctx: ServerContext) {
  if (tool.kind === 'extra') return tool.tool.call(caller, args, ctx);
  try {
    return textResult(tool.name, (await engine.call(caller, tool.name, args, { signal: ctx.mcpReq.signal })) as unknown as Record<string, unknown>, splicesOf(ctx));
  } catch (error) {
    const pub = toPublicError(error);
    if (pub.code === 'INTERNAL') {
      // one line in the log: a client must not be able to fill it with stack traces (COMMONROOM_DEBUG shows them)
      console.error(`[mcp] ${tool.name} failed for ${caller.name}: ${error instanceof Error ? error.message.split('\n')[0] : 'non-error thrown'}`);
      if (process.env.COMMONROOM_DEBUG) console.error(error);
    }
    return { content: [{ type: 'text' as const, text: `${pub.code}: ${pub.message}` }], isError: true };
  }
}

/** Runs a tool so that it creates a task: the engine answers the task it created, durable before this returns. */
async function callAsTask(engine: DoorEngine, caller: Caller, tool: ResolvedTool, args: Record<string, unknown>): Promise<TaskRecord> {
  if (tool.kind === 'extra') {
    if (!tool.tool.startTask) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${tool.tool.name} cannot run as a task`);
    return tool.tool.startTask(caller, args);
  }
  try {
    return (await engine.callForTask(caller, tool.name, args)).task;
  } catch (error) {
    // a refusal before any task exists is an ordinary tool error, not a task
    const pub = toPublicError(error);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${pub.code}: ${pub.message}`);
  }
}

/**
 * One MCP server instance for one caller (a 2025 session, or one 2026 request). Tools come from the contract
 * table; a call goes to the engine. Task-creating tools can answer with a task on both eras; tasks/* are
 * served over the one task store. The low-level Server is used (not McpServer) because tools/call must see
 * params.task and return exact errors.
 */
export function buildMcpServer(engine: DoorEngine, caller: Caller, era: 'legacy' | 'modern', extras: readonly ExtraTool[] = []): Server {
  const capabilities =
    era === 'legacy'
      ? {
          tools: { listChanged: false },
          resources: { subscribe: true, listChanged: false },
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        }
      : { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false }, extensions: { [TASKS_EXTENSION]: {} } };
  const server = new Server(SERVER_INFO, { capabilities, instructions: INSTRUCTIONS });
  enforceCapabilities(server, caller);
  if (era === 'legacy') gateTasksCapability(server);

  server.setRequestHandler('tools/list', () => {
    const tasksOn = era === 'modern' || sessionServesTasks(server);
    const methods = toolsFor(engine, caller).map((name) => {
      const support = (CONTRACT[name] as MethodSpec).task?.support;
      return {
        name,
        description: CONTRACT[name].description,
        inputSchema: inputSchemaOf(name),
        outputSchema: outputSchemaOf(name),
        annotations: annotationsOf(name),
        ...(support && tasksOn ? { execution: { taskSupport: support } } : {}),
      };
    });
    const extra = extras.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.taskSupport && tasksOn ? { execution: { taskSupport: t.taskSupport } } : {}),
    }));
    return { tools: [...methods, ...extra] } as never;
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const params = request.params as typeof request.params & { task?: { ttl?: number } };
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const tool = resolveTool(engine, caller, params.name, extras);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool: ${params.name}; call tools/list for the tools you may use`);

    if (era === 'legacy') {
      const wantsTask = params.task !== undefined;
      if (wantsTask) requireTasksVersion(server, 'a tools/call with task');
      if (wantsTask && tool.support === 'forbidden') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${params.name} cannot run as a task`);
      if (!wantsTask && tool.support === 'required') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${params.name} runs only as a task: send params.task`);
      if (wantsTask) {
        const task = await callAsTask(engine, caller, tool, args);
        noteCreatedTask(server, task.id);
        const progressToken = params._meta?.progressToken;
        if (progressToken !== undefined) followGraphProgress(server, engine, caller, task.id, progressToken);
        // v2 validates every tools/call result as a CallToolResult: `content: []` lets the 2025 CreateTaskResult through
        const created = toTaskV1(task);
        // the task-log link rides on the result's _meta too: a task object's own _meta is not in the 2025 schema
        return { content: [], task: created, _meta: created._meta } as never;
      }
      return (await callPlain(engine, caller, tool, args, ctx)) as never;
    }

    // 2026: the server decides; a task only for a request that declared the extension
    const declared = declaresTasksExtension(ctx);
    if (declared && tool.support !== 'forbidden') {
      const task = await callAsTask(engine, caller, tool, args);
      return { resultType: 'task', ...toTaskV2(task) } as never;
    }
    if (tool.support === 'required') throw missingTasksExtension();
    return (await callPlain(engine, caller, tool, args, ctx)) as never;
  });

  registerResourceHandlers(server, engine, caller, era);
  if (era === 'legacy') registerLegacyTaskHandlers(server, engine, caller);
  else registerModernTaskHandlers(server, engine, caller);
  return server;
}
