import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Engine } from '../engine/engine';
import { JobError, type InputRequester } from '../engine/tasks/task-jobs';
import type { ExtraTool, TaskSupport } from '../mcp/surface/extra-tools';

/**
 * Test fixtures for the official MCP conformance suite (and our own task tests): small tools whose work runs
 * as jobs through the same task rows, task service and door handlers as real tools. Never part of a normal
 * room: only the test entry (`commonroom serve --test-fixtures`, or a test's `startRunner({ extraTools })`)
 * registers them.
 */
interface FixtureTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  taskSupport: TaskSupport;
  run(args: Record<string, unknown>, signal: AbortSignal, requestInput: InputRequester): Promise<Record<string, unknown>>;
}

const text = (t: string, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    }, { once: true });
  });
}

const elicit = (message: string, properties: Record<string, unknown>, required: string[]) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
});

let inputSeq = 0;

export const FIXTURE_TOOLS: FixtureTool[] = [
  {
    name: 'greet',
    description: 'fixture: answers at once (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    taskSupport: 'forbidden',
    run: async (args) => text(`Hello, ${typeof args.name === 'string' ? args.name : 'World'}!`),
  },
  {
    name: 'slow_compute',
    description: 'fixture: sleeps `seconds`, then answers (task optional)',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    taskSupport: 'optional',
    run: async (args, signal) => {
      await sleep(Math.min(30, Math.max(0, Number(args.seconds ?? 1))) * 1000, signal);
      return text(`computed ${typeof args.label === 'string' ? args.label : ''}`);
    },
  },
  {
    name: 'failing_job',
    description: 'fixture: a task-only job that ends with a tool error (isError)',
    inputSchema: { type: 'object', properties: {} },
    taskSupport: 'required',
    run: async (_args, signal) => {
      await sleep(1000, signal);
      return text('job failed', true);
    },
  },
  {
    name: 'protocol_error_job',
    description: 'fixture: fails with a JSON-RPC error',
    inputSchema: { type: 'object', properties: {} },
    taskSupport: 'optional',
    run: async (_args, signal) => {
      await sleep(200, signal);
      throw new JobError(-32603, 'protocol_error_job exploded');
    },
  },
  {
    name: 'confirm_delete',
    description: 'fixture: asks once for a confirmation (input_required), then answers',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    taskSupport: 'optional',
    run: async (args, signal, requestInput) => {
      await sleep(50, signal);
      const key = `confirm-${++inputSeq}`;
      const answers = (await requestInput({ [key]: elicit(`Delete ${String(args.filename)}?`, { confirm: { type: 'boolean' } }, ['confirm']) })) as Record<
        string,
        { action?: string; content?: { confirm?: boolean } }
      >;
      const a = answers[key];
      return text(a?.action === 'accept' && a.content?.confirm ? `deleted ${String(args.filename)}` : `kept ${String(args.filename)}`);
    },
  },
  {
    name: 'multi_input',
    description: 'fixture: two input requests at once',
    inputSchema: { type: 'object', properties: {} },
    taskSupport: 'optional',
    run: async (_args, signal, requestInput) => {
      await sleep(50, signal);
      const props = { name: { type: 'string' }, confirm: { type: 'boolean' } };
      const r = (await requestInput({ 'first-input': elicit('First?', props, ['name']), 'second-input': elicit('Second?', props, ['name']) })) as Record<
        string,
        { content?: { name?: string } }
      >;
      return text(`got ${r['first-input']?.content?.name} and ${r['second-input']?.content?.name}`);
    },
  },
];

/** The job fixtures as MCP tools: a plain call runs the work inline, a task call runs it as a job. */
export function jobFixtureTools(engine: Engine): ExtraTool[] {
  return FIXTURE_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    taskSupport: tool.taskSupport,
    call: async (_caller, args, ctx) =>
      tool.run(args, ctx.mcpReq.signal, async () => {
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${tool.name} needs input: call it as a task`);
      }),
    startTask: (caller, args) =>
      engine.jobs.start(caller, (signal, requestInput) => tool.run(args, signal, requestInput), { ttlMs: 300_000, pollIntervalMs: 300 }),
  }));
}
