import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { makeHome, type TestHome } from '../../helpers/env';
import { BASH } from './helpers';

let home: TestHome;
let running: RunningRoom;
let client: Client;
let agentToken: string;

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  const added = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read', 'write'] });
  agentToken = added.token!;
  client = new Client({ name: 'shell-agent', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${added.token}` } } }));
  void fs;
});
afterAll(async () => {
  await client.close();
  await running.close();
  home.cleanup();
});

const structured = <T>(r: unknown) => (r as { structuredContent: T }).structuredContent;

describe('shells through a real MCP client over HTTP', () => {
  it('lists the shell tools with their input schemas', async () => {
    const tools = (await client.listTools()).tools;
    const io = tools.find((t) => t.name === 'shell_io');
    expect(io?.inputSchema.properties).toHaveProperty('wait');
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['shell_open', 'shell_io', 'shell_close', 'shell_list']));
  });

  it('open, io with a wait, close', async () => {
    const opened = structured<{ shell: { id: string; owner: string } }>(await client.callTool({ name: 'shell_open', arguments: BASH }));
    expect(opened.shell.owner).toBe('agent');
    const io = structured<{ output: string; wait: { reason: string } }>(
      await client.callTool({
        name: 'shell_io',
        arguments: { shellId: opened.shell.id, text: "printf 'mc%s\\n' p-ok\n", wait: { until: 'match', pattern: 'mcp-ok' } },
      }),
    );
    expect(io.wait.reason).toBe('matched');
    expect(io.output).toContain('mcp-ok');
    const closed = structured<{ shellId: string; exit: unknown }>(await client.callTool({ name: 'shell_close', arguments: { shellId: opened.shell.id } }));
    expect(closed.shellId).toBe(opened.shell.id);
    const listed = structured<{ shells: { id: string }[] }>(await client.callTool({ name: 'shell_list', arguments: {} }));
    expect(listed.shells.map((s) => s.id)).not.toContain(opened.shell.id);
  });

  it('shell_run answers output and exit codes 0, 1 and 130 (C-c); format "screen" answers the screen', { timeout: 60_000 }, async () => {
    const tools = (await client.listTools()).tools;
    const runTool = tools.find((t) => t.name === 'shell_run');
    expect(Object.keys(runTool?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['shellId', 'command', 'interrupt', 'timeoutMs']));
    const opened = structured<{ shell: { id: string } }>(await client.callTool({ name: 'shell_open', arguments: { ...BASH, cols: 30, rows: 4 } }));
    const shellId = opened.shell.id;
    type Run = { status: string; exitCode: number | null; output: string; integration: string };
    const call = async (args: Record<string, unknown>) => structured<Run>(await client.callTool({ name: 'shell_run', arguments: { shellId, timeoutMs: 20_000, ...args } }));
    expect(await call({ command: "printf 'a%sc\\n' b" })).toMatchObject({ status: 'finished', exitCode: 0, output: 'abc\n', integration: 'marks' });
    expect(await call({ command: 'false' })).toMatchObject({ status: 'finished', exitCode: 1, output: '' });
    expect(await call({ command: 'sleep 30', timeoutMs: 300 })).toMatchObject({ status: 'running', exitCode: null });
    expect(await call({ interrupt: true })).toMatchObject({ status: 'finished', exitCode: 130 });
    await call({ command: "clear; printf 'x\\033[2;3Hy'" });
    const shot = structured<{ output: string; screen: { cursor: { row: number; col: number } } }>(
      await client.callTool({ name: 'shell_io', arguments: { shellId, format: 'screen' } }),
    );
    expect(shot.output.split('\n').slice(0, 2)).toEqual(['x', '  yPROMPT>']);
    expect(shot.screen.cursor).toEqual({ row: 1, col: 11 });
    await client.callTool({ name: 'shell_close', arguments: { shellId } });
  });

  it('a 1 MiB page of everything a terminal writes arrives exactly as written on both eras, in an answer that is its own exact JSON, in the structured answer and at the end of the text', { timeout: 60_000 }, async () => {
    // every byte class JSON escapes or carries: control bytes, escape sequences, quotes, backslashes, DEL, and
    // UTF-8 of two, three and four bytes; the room writes large strings into the answer after the SDK (text-splices.ts)
    // (four to a line: the scrollback keeps 10,000 lines, and the page must fit in them)
    const unit = `${'y\t"q" \\ \u0001\u001b[1;31mé語😀\u007f\u2028\u0007'.repeat(4)}\n`;
    const content = unit.repeat(Math.ceil(900_000 / Buffer.byteLength(unit)));
    const file = `${home.root}/page.txt`;
    fs.writeFileSync(file, content);
    const opened = structured<{ shell: { id: string } }>(await client.callTool({ name: 'shell_open', arguments: BASH }));
    const shellId = opened.shell.id;
    const started = structured<{ nextCursor: string }>(
      await client.callTool({ name: 'shell_io', arguments: { shellId, text: "stty -echo; printf 'READY\\n'\n", wait: { until: 'match', pattern: '^READY' } } }),
    );
    const sent = structured<{ cursor: string }>(
      await client.callTool({ name: 'shell_io', arguments: { shellId, cursor: started.nextCursor, text: `cat '${file}'; printf 'PAGE%s\\n' END\n`, maxBytes: 1, wait: { until: 'match', pattern: 'PAGEEND' } } }),
    );
    // the terminal turns each newline into CR LF; nothing else changes
    const expected = content.replaceAll('\n', '\r\n');
    // a 2025 client too: its session's answers are SSE events, spliced event by event
    const legacy = new ClientV1({ name: 'shell-agent-2025', version: '1' });
    await legacy.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${agentToken}` } } }));
    for (const reader of [client, legacy] as { callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> }[]) {
      let read = '';
      let cursor = sent.cursor;
      while (!read.includes('PAGEEND')) {
        const answer = await reader.callTool({ name: 'shell_io', arguments: { shellId, cursor, format: 'raw', maxBytes: 1024 * 1024 } });
        const page = structured<{ output: string; nextCursor: string; truncated: boolean }>(answer);
        expect(page.truncated).toBe(false);
        // the text summary ends with the output itself, exactly (a client that reads only text gets it too)
        expect((answer as { content: { text: string }[] }).content[0]!.text.endsWith(`\n${page.output}`)).toBe(true);
        read += page.output;
        cursor = page.nextCursor;
      }
      expect(read.slice(read.indexOf('y\t'), read.indexOf('PAGEEND'))).toBe(expected);
    }
    await legacy.close();

    // the same page over raw HTTP (2026): the body is exactly what JSON.stringify makes of the answer it parses to
    const response = await fetch(running.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'shell_io' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'shell_io',
          arguments: { shellId, cursor: sent.cursor, format: 'raw', maxBytes: 1024 * 1024 },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    const answer = JSON.parse(body.toString('utf8')) as { result: { structuredContent: { output: string }; content: { text: string }[] } };
    expect(body.equals(Buffer.from(JSON.stringify(answer)))).toBe(true);
    expect(answer.result.structuredContent.output.length).toBeGreaterThan(500_000);
    expect(answer.result.content[0]!.text.endsWith(`\n${answer.result.structuredContent.output}`)).toBe(true);
    await client.callTool({ name: 'shell_close', arguments: { shellId } });
  });

  it('a refusal comes back as a tool error that says what to do', async () => {
    const r = (await client.callTool({ name: 'shell_io', arguments: { shellId: 'sh-000000-deadbeef00' } })) as { isError?: boolean; content: { text: string }[] };
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toMatch(/NOT_FOUND: unknown shell: the runner restarted/);
  });
});
