import { acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import type { Engine } from '../engine/engine';
import type { ExtraTool } from '../mcp/surface/extra-tools';
import { toTaskV2 } from '../mcp/tasks/task-wire';
import { declaresTasksExtension, missingTasksExtension } from '../mcp/tasks/tasks-extension';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const noInput = { type: 'object' as const, properties: {} };

/**
 * The two conformance fixtures that exercise the protocol itself rather than a task's work:
 * `test_reconnection` (2025: the server closes the call's SSE stream mid-call; the client must resume with
 * Last-Event-ID) and `test_tool_with_task` (2026: an input round on tools/call itself, then a task).
 */
export function protocolFixtureTools(engine: Engine): ExtraTool[] {
  return [
    {
      name: 'test_reconnection',
      description: 'fixture: closes the call’s SSE stream mid-call (2025)',
      inputSchema: noInput,
      call: async (_caller, _args, ctx) => {
        await sleep(100);
        ctx.http?.closeSSE?.();
        await sleep(500);
        return { content: [{ type: 'text', text: 'reconnected' }] };
      },
    },
    {
      name: 'test_tool_with_task',
      description: 'fixture: an input round, then a task (2026)',
      inputSchema: noInput,
      call: async (caller, _args, ctx) => {
        if (!declaresTasksExtension(ctx)) throw missingTasksExtension();
        const got = acceptedContent<{ name?: string }>(ctx.mcpReq.inputResponses, 'user_name');
        if (got?.name === undefined) {
          return inputRequired({
            inputRequests: {
              user_name: inputRequired.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
            },
          }) as unknown as Record<string, unknown>;
        }
        const who = got.name;
        const task = engine.jobs.start(caller, async () => ({ content: [{ type: 'text', text: `Hello, ${who}!` }] }), { ttlMs: 300_000, pollIntervalMs: 300 });
        return { resultType: 'task', ...toTaskV2(task) };
      },
    },
  ];
}
