import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { CONTRACT, isMethodName, type MethodName } from '../common/contract';
import type { Caller } from '../common/dto';
import { toPublicError } from '../common/errors';
import { RUNNER_VERSION } from '../common/version';
import type { Engine } from '../engine/engine';

export const SERVER_INFO = { name: 'commonroom', version: RUNNER_VERSION } as const;

const INSTRUCTIONS =
  'Commonroom is a local runner shared by agents and the person at the desktop. ' +
  'Call room_info to see the room. Every tool answers JSON text and the same object as structured content.';

type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** JSON Schema for a method's input, generated once from its zod schema. */
const inputSchemas = new Map<MethodName, JsonSchemaObject>();
function inputSchemaOf(method: MethodName): JsonSchemaObject {
  let schema = inputSchemas.get(method);
  if (!schema) {
    const generated = z.toJSONSchema(CONTRACT[method].input, { target: 'draft-2020-12' }) as Record<string, unknown>;
    delete generated.$schema;
    schema = { ...generated, type: 'object' };
    inputSchemas.set(method, schema);
  }
  return schema;
}

/** The MCP tools a caller sees: contract methods offered as tools that its capabilities allow. */
export function toolsFor(engine: Engine, caller: Caller): MethodName[] {
  return engine.methodsFor(caller).filter((m) => CONTRACT[m].mcpTool);
}

/**
 * One MCP server instance for one caller (a legacy session, or one modern request). Tools come from the
 * contract table; a call goes to the engine, whose refusals come back as tool errors the model can read.
 * The low-level Server is used (not McpServer) because later layers need params.task and exact errors.
 */
export function buildMcpServer(engine: Engine, caller: Caller, capabilities: Record<string, unknown> = {}): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, ...capabilities },
    instructions: INSTRUCTIONS,
  });

  server.setRequestHandler('tools/list', () => ({
    tools: toolsFor(engine, caller).map((name) => ({
      name,
      description: CONTRACT[name].description,
      inputSchema: inputSchemaOf(name),
    })),
  }));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (!isMethodName(name) || !CONTRACT[name].mcpTool || !toolsFor(engine, caller).includes(name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool: ${name}; call tools/list for the tools you may use`);
    }
    try {
      const result = (await engine.call(caller, name, args ?? {}, { signal: ctx.mcpReq.signal })) as unknown as Record<string, unknown>;
      return { content: [{ type: 'text' as const, text: JSON.stringify(result, null, 2) }], structuredContent: result };
    } catch (error) {
      const pub = toPublicError(error);
      if (pub.code === 'INTERNAL') console.error(`[mcp] ${name} failed for ${caller.name}:`, error);
      return { content: [{ type: 'text' as const, text: `${pub.code}: ${pub.message}` }], isError: true };
    }
  });

  return server;
}
