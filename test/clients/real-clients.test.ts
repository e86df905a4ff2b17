import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripAnsi } from '../../src-main/common/ansi';
import { connectSnippets } from '../../src-main/common/connect-snippets';
import { makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { realClients } from '../helpers/real-clients';

/**
 * The clients people use, installed from the npm registry at the versions in test/clients/package.json (found by
 * test/helpers/real-clients.ts), each configured the way the room's own snippet says, in a home of
 * its own. No model or account is reachable here, so what runs is each client's own MCP check: `mcp list`
 * connects, initializes and lists like a session start does, and leaves its session open as it exits (none of
 * them sends DELETE). Forty in a row against one participant must all connect: the room closes the idlest
 * session at the cap instead of refusing the next one.
 */
const CLIENTS = ['claude', 'gemini', 'opencode', 'mcp-remote'] as const;
const { bin: BIN, reason } = realClients(CLIENTS);
const run = promisify(execFile);

let home: TestHome;
let serve: ServeProcess;
let token: string;
let env: NodeJS.ProcessEnv;
let project: string;

/** A snippet as the person pastes it into a shell (the room's own text, not a copy of it). */
async function paste(id: string): Promise<string> {
  const snippet = connectSnippets(serve.mcpUrl.toString(), token).find((s) => s.id === id);
  if (!snippet) throw new Error(`no snippet ${id}`);
  const { stdout, stderr } = await run('/bin/sh', ['-c', snippet.text], { env, cwd: project, timeout: 120_000 });
  return stdout + stderr;
}

async function mcpList(client: 'claude' | 'gemini' | 'opencode'): Promise<string> {
  const { stdout, stderr } = await run(path.join(BIN, client), ['mcp', 'list'], { env, cwd: project, timeout: 120_000 });
  return stdout + stderr;
}

/** The agent's presence as the room reports it: its connections and open sessions. */
function presenceOf(): { name: string; connections: number; sessions: unknown[] } | undefined {
  const list = runCe(home, ['participant', 'list', '--json']);
  return (JSON.parse(list.stdout) as { activity: { name: string; connections: number; sessions: unknown[] }[] }).activity.find((p) => p.name === 'agent');
}

/** The end of a client's own log of its last run, where it keeps one (opencode: ~/.local/share/opencode/log). */
function clientLogTail(client: string): string {
  const dir = path.join(String(env.HOME), '.local', 'share', client, 'log');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [];
  const newest = files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  return newest ? fs.readFileSync(newest, 'utf8').split('\n').filter((l) => !l.includes('service=bus')).slice(-40).join('\n') : '(none kept)';
}

/** What each client prints for a server it reached (colours stripped). */
const CONNECTED: Record<'claude' | 'gemini' | 'opencode', RegExp> = {
  claude: /commonroom: \S+ \(HTTP\) - ✔ Connected/,
  gemini: /✓ commonroom: \S+ \(http\) - Connected/,
  opencode: /✓ commonroom\s+connected/,
};
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

beforeAll(async () => {
  if (reason) return;
  home = makeHome();
  serve = await startServe(home);
  const added = runCe(home, ['participant', 'add', 'agent', '--can', 'read,write', '--json']);
  token = (JSON.parse(added.stdout) as { token: string }).token;
  // each client's own configuration lives in this home, never the user's
  const clientHome = path.join(home.root, 'home');
  project = path.join(clientHome, 'project');
  fs.mkdirSync(project, { recursive: true });
  // Gemini CLI connects only in folders the person trusted (it asks on its first interactive start)
  fs.mkdirSync(path.join(clientHome, '.gemini'), { recursive: true });
  fs.writeFileSync(path.join(clientHome, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
  env = {
    ...home.env,
    HOME: clientHome,
    XDG_CONFIG_HOME: path.join(clientHome, '.config'),
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    NO_COLOR: '1',
    CI: '1',
    // opencode fetches its model list from the internet on every start (unreachable here; as in prompts-live)
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
}, 60_000);

afterAll(async () => {
  if (serve) await stopServe(serve);
  home?.cleanup();
});

describe.skipIf(reason !== '')(`real MCP clients against one participant${reason ? ` (skipped: ${reason})` : ''}`, () => {
  // one client at a time: side by side on a 2-core box (with another test file beside them) a client's own
  // connect timeout (opencode's was 5 s then) was once passed by its start-up alone. 40 runs each, well past the ~16
  // connections at which a token used to lock itself out (each run leaves its session open: none sends DELETE)
  for (const client of ['claude', 'gemini', 'opencode'] as const) {
    it(`${client}: the room's snippet adds the server, and mcp list connects 40 times in a row`, { timeout: 600_000 }, async () => {
      await paste(client === 'claude' ? 'claude-code' : client === 'gemini' ? 'gemini-cli' : 'opencode');
      const outcomes: string[] = [];
      for (let i = 0; i < 40; i++) {
        let out = plain(await mcpList(client));
        let retried = false;
        // a lockout (the room refusing the token) answers at once and stays; a run that waited out the client's own
        // connect timeout (once in CI: opencode's 30 s, on a 2-core machine under the whole suite) is tried once
        // more, and what both sides saw is printed, so a room that really stalls still fails here, and says how
        if (!CONNECTED[client].test(out) && /timed? ?out/i.test(out)) {
          console.log(`[real-clients] ${client} run ${i + 1} timed out; the room then: ${JSON.stringify(presenceOf())}; its output's tail:\n${serve.output().slice(-2000)}\n${client}'s own log's tail:\n${clientLogTail(client)}`);
          out = plain(await mcpList(client));
          retried = true;
        }
        outcomes.push(!CONNECTED[client].test(out) ? `run ${i + 1}: ${out.trim()}` : retried ? 'retried' : 'connected');
      }
      expect(outcomes.filter((o) => o !== 'connected' && o !== 'retried'), 'runs that did not connect').toEqual([]);
      expect(outcomes.filter((o) => o === 'retried').length, 'runs that timed out and connected only when tried again').toBeLessThanOrEqual(1);
      // every run exited (its GET stream dropped): none reads connected, though each left its session open (those
      // wait in the room's table, within the participant's cap, until they idle out or a later run takes their place)
      // (the last run's stream may still be closing as it exits: the room sees it go within moments)
      try {
        await expect.poll(presenceOf, { timeout: 10_000, interval: 500 }).toMatchObject({ connections: 0, sessions: [] });
      } catch (error) {
        // seen once under load (opencode, a connection still counted 10 s after its last run): is a process of the
        // client still there holding it, or does the room count a socket that is gone?
        const ps = spawnSync('ps', ['-eo', 'pid,ppid,etime,args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes(client)).join('\n');
        const port = new URL(serve.mcpUrl).port;
        const sockets = spawnSync('ss', ['-tnp', `( sport = :${port} or dport = :${port} )`], { encoding: 'utf8' }).stdout;
        console.log(`[real-clients] ${client}: still counted ${JSON.stringify(presenceOf())}\n--- its processes\n${ps || '(none)'}\n--- sockets of the room's port\n${sockets}`);
        throw error;
      }
    });
  }

  it('gemini, started interactively with a key, reports no MCP issue: its SDK resumes every answered stream, then opens a second GET stream, and is answered 405, not a 409 it shows as an error', { timeout: 120_000 }, async () => {
    const settingsFile = path.join(String(env.HOME), '.gemini', 'settings.json');
    if (!fs.existsSync(settingsFile)) await paste('gemini-cli');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    // signed in with a key (no model is reachable: it never gets that far), so it starts its MCP servers at once
    fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, security: { auth: { selectedType: 'gemini-api-key' } } }));
    const { CI: _ci, NO_COLOR: _nc, ...interactive } = env;
    const term = pty.spawn(path.join(BIN, 'gemini'), [], {
      cwd: project,
      cols: 140,
      rows: 40,
      env: { ...interactive, GEMINI_API_KEY: 'not-a-key', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9', TERM: 'xterm-256color' } as Record<string, string>,
    });
    let out = '';
    term.onData((d) => (out += d));
    try {
      await expect.poll(() => stripAnsi(out), { timeout: 60_000, interval: 500 }).toMatch(/Type your message/);
      // its stream resumptions and the second GET come within its reconnection delays (1 s each, twice)
      await new Promise((r) => setTimeout(r, 6000));
      expect(stripAnsi(out)).toMatch(/1 MCP server/);
      expect(stripAnsi(out)).not.toMatch(/MCP issues detected|MCP ERROR/);
    } finally {
      term.kill();
    }
  });

  it('mcp-remote (how Claude Desktop reaches HTTP servers) relays tools and their text summaries over stdio', { timeout: 120_000 }, async () => {
    const snippet = JSON.parse(connectSnippets(serve.mcpUrl.toString(), token).find((s) => s.id === 'claude-desktop')?.text ?? '{}') as {
      mcpServers: { commonroom: { args: string[]; env: Record<string, string> } };
    };
    const { args, env: serverEnv } = snippet.mcpServers.commonroom;
    // the snippet's npx -y mcp-remote …, with the installed mcp-remote (no registry fetch at run time)
    const transport = new StdioClientTransport({ command: path.join(BIN, 'mcp-remote'), args: args.slice(2), env: { ...(env as Record<string, string>), ...serverEnv }, stderr: 'pipe' });
    const client = new Client({ name: 'claude-desktop-via-mcp-remote', version: '1' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['room_info', 'shell_open', 'tasks_run', 'handoff_create']));
      const created = (await client.callTool({ name: 'handoff_create', arguments: { summary: 'through mcp-remote' } })) as unknown as { content: { text: string }[]; structuredContent: { handoff: { id: string } } };
      // a client that shows the model only the text still gets the id and what to call next
      expect(created.content[0]?.text).toContain(created.structuredContent.handoff.id);
      expect(created.content[0]?.text).toMatch(/handoff_get/);
    } finally {
      await client.close();
    }
  });
});
