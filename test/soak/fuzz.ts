import { monitorEventLoopDelay } from 'node:perf_hooks';
import fc from 'fast-check';
import { CONTRACT, METHOD_NAMES, type MethodName } from '../../src-main/common/contract';
import type { Caller } from '../../src-main/common/dto';
import { RoomError } from '../../src-main/common/errors';
import { startRunner } from '../../src-main/server/runner';
import { makeHome, REPO } from '../helpers/env';
import { BASH } from '../engine/shells/helpers';

/**
 * Property-based fuzzing of every tool's arguments (through the engine's one validation table, as every door
 * calls it) and of raw JSON-RPC framing over HTTP, plus agent regexes from a ReDoS corpus in shell waits and
 * graph readiness. The runner is in this process, so a stalled runner is a stalled loop here: the event-loop
 * delay histogram sees it. A problem is counted with its first example; the caller asserts the counts are 0.
 */
export const REDOS_CORPUS = ['(a|aa)+$', '(a|a)*b', '^(\\w+\\s?)*$', '(a+)+$', '([a-zA-Z]+)*!x', '(.*a){12}', '(a|b|ab)*c', '^(a?){25}a{25}$', '(\\d+|\\w+)*#', '((a*)*)*$'];
const SIDE_EFFECTS = ['shell_open', 'tasks_run', 'handoff_create', 'participant_add'];
const STACK = /\n\s+at .+:\d+:\d+/;

export interface FuzzTally {
  tools: number;
  casesPerTool: number;
  framing: number;
  redos: number;
  problems: string[];
  maxLagMs: number;
}

export async function runFuzz(perTool: number, framing: number, redos: number): Promise<FuzzTally> {
  const home = makeHome();
  const running = await startRunner({ port: 0, paths: home.paths });
  const engine = running.engine;
  const caller = await engine.call(engine.operator(), 'participant_add', { name: 'fuzzer', capabilities: ['read', 'write', 'approve'] });
  const who: Caller = { name: 'fuzzer', role: 'agent', capabilities: ['read', 'write', 'approve'] };
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const problems: string[] = [];
  const note = (p: string) => void (problems.length < 20 && problems.push(p));
  const lastEvent = () => (engine.room.db.prepare('SELECT coalesce(max(id), 0) AS n FROM events').get() as { n: number }).n;
  const tools = METHOD_NAMES.filter((m) => CONTRACT[m].mcpTool && !SIDE_EFFECTS.includes(m)) as MethodName[];
  lag.enable();
  try {
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })), async (args) => {
          const before = lastEvent();
          try {
            await engine.call(who, tool, args);
          } catch (e) {
            if (!(e instanceof RoomError) || e.code === 'INTERNAL') note(`${tool}: ${String(e)} for ${JSON.stringify(args).slice(0, 200)}`);
            else if (STACK.test(e.message) || e.message.includes(REPO)) note(`${tool}: stack or path in ${e.message.slice(0, 200)}`);
            if (lastEvent() !== before) note(`${tool}: a refused call wrote an event`);
          }
        }),
        { numRuns: perTool },
      );
    }
    const body = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), method: fc.string(), params: fc.jsonValue() }).map((v) => JSON.stringify(v)),
      fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('tools/list', 'ping', 'initialize', 'tasks/get'), extra: fc.jsonValue({ maxDepth: 2 }) })).map((v) => JSON.stringify(v)),
      fc.integer({ min: 1, max: 20_000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
      fc.string(),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${caller.token}` };
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (text, modern) => {
        const h: Record<string, string> = { ...headers, ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } : {}) };
        const res = await fetch(running.mcpUrl, { method: 'POST', headers: h, body: text, signal: AbortSignal.timeout(10_000) });
        const reply = await res.text();
        if (res.status >= 500 || STACK.test(reply) || reply.includes(REPO)) note(`framing: HTTP ${res.status} ${reply.slice(0, 200)} for ${text.slice(0, 100)}`);
      }),
      { numRuns: framing },
    );
    // ReDoS corpus and random patterns against 36 "a" and a "!" in a shell, and as a stage's readiness
    const { shell } = await engine.call(who, 'shell_open', BASH);
    await engine.call(who, 'shell_io', { shellId: shell.id, text: `stty -echo; printf '%s!' ${'a'.repeat(36)}\n`, wait: { until: 'idle', idleMs: 200 } });
    const pattern = fc.oneof(fc.constantFrom(...REDOS_CORPUS), fc.string({ minLength: 1, maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(pattern, async (p) => {
        try {
          await engine.call(who, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: p, timeoutMs: 20 } });
        } catch (e) {
          if (!(e instanceof RoomError) || e.code === 'INTERNAL') note(`shell wait ${JSON.stringify(p)}: ${String(e)}`);
        }
      }),
      { numRuns: redos },
    );
    for (const p of REDOS_CORPUS) {
      const { graphId } = await engine.call(who, 'tasks_run', { stages: [{ id: 'svc', command: `printf '%s!' ${'a'.repeat(36)}; exec sleep 30`, readiness: { log: p, timeoutMs: 300 } }] }).catch((e: unknown) => {
        if (!(e instanceof RoomError)) note(`readiness ${p}: ${String(e)}`);
        return { graphId: null };
      });
      if (graphId) {
        await new Promise((r) => setTimeout(r, 400));
        await engine.call(who, 'tasks_cancel', { graphId });
      }
    }
    await engine.call(who, 'shell_close', { shellId: shell.id });
  } finally {
    lag.disable();
    console.error = original;
    await running.close();
    home.cleanup();
  }
  if (logged.some((l) => STACK.test(l))) note(`a stack trace in the log: ${logged.find((l) => STACK.test(l))?.slice(0, 300)}`);
  return { tools: tools.length, casesPerTool: perTool, framing, redos, problems, maxLagMs: Math.round(lag.max / 1e6) };
}
