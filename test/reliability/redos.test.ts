import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, type TestHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { BASH, offsetOf, sleep } from '../engine/shells/helpers';
import { encodeCursor } from '../../src-main/engine/core/paging';

// The runner runs in its own process (the built CLI): a stalled event loop there cannot stall this test's.
let home: TestHome;
let serve: ServeProcess;
let client: Client;
let shellId: string;
let from: string;

const structured = <T>(r: unknown) => (r as { structuredContent: T }).structuredContent;

beforeAll(async () => {
  home = makeHome();
  serve = await startServe(home);
  client = new Client({ name: 'redos', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${serve.token}` } } }));
  shellId = structured<{ shell: { id: string } }>(await client.callTool({ name: 'shell_open', arguments: BASH })).shell.id;
  // no echo, and no newline after the output: the text is 36 "a", a "!" and the prompt, with no empty line for ^…$ to match
  // each command is typed once the prompt is there: typed ahead, it would be echoed before stty turns echo off
  const prompt = { until: 'match', pattern: 'PROMPT> ', timeoutMs: 30_000 };
  await client.callTool({ name: 'shell_io', arguments: { shellId, cursor: 'start', wait: prompt } });
  const quiet = await client.callTool({ name: 'shell_io', arguments: { shellId, text: 'stty -echo\n', wait: prompt } });
  const start = structured<{ nextCursor: string }>(quiet).nextCursor;
  const printed = await client.callTool({ name: 'shell_io', arguments: { shellId, cursor: start, text: `printf '%s!' ${'a'.repeat(36)}\n`, wait: { ...prompt, pattern: '!PROMPT> ' } } });
  // from the first "a" (ASCII, so characters are bytes): nothing before it, not even a line break
  from = encodeCursor('shell', shellId, [offsetOf(start, shellId) + structured<{ output: string }>(printed).output.indexOf('a')]);
}, 60_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  // SIGKILL: a runner stuck in a regex would not run its SIGTERM handler
  if (serve) await stopServe(serve, 'SIGKILL');
  home.cleanup();
});

describe('agent patterns with catastrophic backtracking', () => {
  it.each(['(a|aa)+$', '(a|a)*b', '^(\\w+\\s?)*$'])('%j: the runner answers an unauthenticated GET while the wait runs', async (pattern) => {
    const order: string[] = [];
    const wait = client
      .callTool({ name: 'shell_io', arguments: { shellId, cursor: from, wait: { until: 'match', pattern, timeoutMs: 2000 } } })
      .then((r) => {
        order.push('wait');
        return r;
      });
    await sleep(300); // the wait has started matching by now
    const get = fetch(new URL('/', serve.mcpUrl)).then(async (r) => {
      order.push('get');
      return r.status;
    });
    const [status, result] = await Promise.all([get, wait]);
    expect(status).toBe(200);
    expect((result as { isError?: boolean }).isError ?? false).toBe(false);
    expect(structured<{ wait: { reason: string } }>(result).wait.reason).toBe('timeout');
    expect(order).toEqual(['get', 'wait']);
  }, 30_000);
});
