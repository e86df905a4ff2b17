import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT, METHOD_NAMES } from '../../src-main/common/contract';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, REPO, type TestHome } from '../helpers/env';

// The fast subset of the soak suite: random JSON-RPC framing and random tool arguments, 500 cases in all.
let home: TestHome;
let running: RunningRoom;
let token: string;
const logged: string[] = [];
let restore: () => void;

const HEADERS = () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` });

/** Nothing a client gets back may carry a stack frame or a path of the runner's source. */
function assertClean(status: number, text: string): void {
  expect(status).toBeLessThan(500);
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(text).not.toContain(REPO);
}

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  token = (await running.engine.call(running.engine.operator(), 'participant_add', { name: 'fuzzer', capabilities: ['read', 'write', 'approve'] })).token;
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
  restore = () => (console.error = original);
});
afterAll(async () => {
  restore();
  await running.close();
  home.cleanup();
});

describe('fuzz (fast subset)', () => {
  it('raw JSON-RPC framing: 300 random bodies are all answered without a 5xx, a stack or a path', async () => {
    const body = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), method: fc.string(), params: fc.jsonValue() }).map((v) => JSON.stringify(v)),
      fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('tools/list', 'ping', 'initialize', 'tasks/get') })).map((v) => JSON.stringify(v)),
      fc.string(),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (text, modern) => {
        const headers: Record<string, string> = HEADERS();
        if (modern) Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
        const res = await fetch(running.mcpUrl, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(10_000) });
        assertClean(res.status, await res.text());
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('tool arguments: 200 random argument objects for every side-effect-free tool are refused or answered cleanly', async () => {
    const tools = METHOD_NAMES.filter((m) => CONTRACT[m].mcpTool && !['shell_open', 'tasks_run', 'handoff_create', 'participant_add'].includes(m));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...tools), fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })), async (name, args) => {
        const res = await fetch(running.mcpUrl, {
          method: 'POST',
          headers: { ...HEADERS(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        assertClean(res.status, text);
        expect(text).not.toContain('INTERNAL');
      }),
      { numRuns: 200 },
    );
  }, 180_000);

  it('wrote no stack trace to the log', () => {
    expect(logged.join('\n')).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
