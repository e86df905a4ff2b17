import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunView } from '../../src-main/common/methods/agents';
import type { ShellView } from '../../src-main/common/methods/shells';
import { makeHome, REPO, type TestHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { realClients } from '../helpers/real-clients';

/**
 * The real CLIs (test/clients/package.json), started by the room in its own terminals with their per-run
 * configuration (ce agent start / agent_start). No model or account is reachable, so each is taken as far as
 * it gets: its own MCP check (`mcp list`) run through the room, or its startup screen, with the room's status
 * of its terminal. Their configuration lives in a home of the test's, which also holds "the user's own"
 * client configuration: it must be the same after as before.
 */
const CLIENTS = ['claude', 'codex', 'gemini', 'opencode'] as const;
const { bin: BIN, reason } = realClients(CLIENTS);
/** Where real screens are written, to be looked at (and kept as fixtures when a client's screens change). */
const SCREENS = path.join(REPO, 'test-output', 'agent-screens');

let home: TestHome;
let serve: ServeProcess;
let clientHome: string;
let project: string;

/** The user's own client configuration, before the room starts anything. */
const USER_CONFIG: Record<string, string> = {
  '.claude.json': JSON.stringify({ autoUpdates: false, mcpServers: { mine: { type: 'http', url: 'http://127.0.0.1:9/mine' } } }),
  '.gemini/settings.json': JSON.stringify({ mcpServers: { mine: { httpUrl: 'http://127.0.0.1:9/mine' } } }),
  '.config/opencode/opencode.json': JSON.stringify({ mcp: { mine: { type: 'remote', url: 'http://127.0.0.1:9/mine' } } }),
  '.codex/config.toml': '[mcp_servers.mine]\nurl = "http://127.0.0.1:9/mine"\n',
};
/** What the room must never write: the MCP part (a client rewrites the rest itself: Claude Code counts its starts, Codex notes its screen-reader check). */
function mcpPartOf(file: string, text: string): string {
  if (file.endsWith('.json')) {
    const parsed = JSON.parse(text) as { mcpServers?: unknown; mcp?: unknown };
    return JSON.stringify(parsed.mcpServers ?? parsed.mcp ?? null);
  }
  // TOML: the [mcp_servers.*] tables (Codex keeps its own state in the same file, e.g. [tui])
  return text
    .split(/^(?=\[)/m)
    .filter((table) => table.startsWith('[mcp_servers'))
    .map((table) => table.trim())
    .join('\n');
}
const digest = () =>
  Object.fromEntries(Object.keys(USER_CONFIG).map((f) => [f, crypto.createHash('sha256').update(mcpPartOf(f, fs.readFileSync(path.join(clientHome, f), 'utf8'))).digest('hex')]));
let before: Record<string, string>;

async function api<T>(method: string, input: unknown): Promise<T> {
  const r = await fetch(new URL(`/api/${method}`, serve.mcpUrl), { method: 'POST', headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (!r.ok) throw new Error(`${method}: ${body.error?.message ?? r.status}`);
  return body.result as T;
}

async function shellOf(shellId: string): Promise<ShellView> {
  const shell = (await api<{ shells: ShellView[] }>('shell_list', {})).shells.find((s) => s.id === shellId);
  if (!shell) throw new Error(`no shell ${shellId}`);
  return shell;
}

async function until(shellId: string, ok: (s: ShellView) => boolean, what: string, timeoutMs = 60_000): Promise<ShellView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shell = await shellOf(shellId);
    if (ok(shell)) return shell;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(shell.status)}\n${await output(shellId)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const output = async (shellId: string) => (await api<{ output: string }>('shell_io', { shellId, cursor: 'start', maxBytes: 1024 * 1024 })).output;
const screen = async (shellId: string) => (await api<{ output: string }>('shell_io', { shellId, format: 'screen' })).output;
const start = (input: Record<string, unknown>) => api<{ agent: AgentRunView }>('agent_start', { cwd: project, cols: 120, rows: 40, ...input });

/** No process on this machine has a token on its command line while agents run. */
function tokensOnCommandLines(): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (/cr_[A-Za-z0-9_-]{40,}/.test(argv)) found.push(`${pid}: ${argv.replaceAll('\0', ' ').slice(0, 200)}`);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

beforeAll(async () => {
  if (reason) return;
  // in the user's home: Gemini CLI reads no settings file from under a folder anyone may write (/tmp, and so
  // a checkout under /tmp too)
  home = makeHome(path.join(os.homedir(), '.cache', 'commonroom-test-homes'));
  clientHome = path.join(home.root, 'home');
  project = path.join(clientHome, 'project');
  fs.mkdirSync(project, { recursive: true });
  for (const [file, text] of Object.entries(USER_CONFIG)) {
    fs.mkdirSync(path.dirname(path.join(clientHome, file)), { recursive: true });
    fs.writeFileSync(path.join(clientHome, file), text);
  }
  before = digest();
  fs.mkdirSync(SCREENS, { recursive: true });
  // the room process finds the clients on its PATH, and its agents inherit its environment (a dummy API key
  // lets Claude Code's print mode go as far as connecting its MCP servers)
  serve = await startServe({
    ...home,
    env: { ...home.env, HOME: clientHome, XDG_CONFIG_HOME: path.join(clientHome, '.config'), PATH: `${BIN}:${process.env.PATH ?? ''}`, ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key', NO_COLOR: '1', CI: 'true' },
  });
}, 60_000);

afterAll(async () => {
  if (serve) await stopServe(serve);
  home?.cleanup();
});

describe.skipIf(reason !== '')(`real agent CLIs started by the room${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('agent_clients finds each on the PATH with its version', async () => {
    const { clients } = await api<{ clients: { id: string; path: string | null; version: string | null }[] }>('agent_clients', {});
    for (const id of ['claude-code', 'codex', 'gemini-cli', 'opencode']) {
      const c = clients.find((x) => x.id === id);
      expect(c?.path, id).toContain(BIN);
      expect(c?.version, id).toMatch(/\d+\.\d+\.\d+/);
    }
  });

  it("Gemini CLI and opencode, run for their own MCP check in the room's terminal, report the room's server connected", { timeout: 120_000 }, async () => {
    for (const [client, connected] of [
      ['gemini-cli', /✓ commonroom: http:\/\/127\.0\.0\.1:\d+\/mcp \(http\) - Connected/],
      ['opencode', /✓ commonroom\s+connected/],
    ] as const) {
      const { agent } = await start({ client, args: ['mcp', 'list'] });
      expect(agent.participant).toBe(client);
      const ended = await until(agent.shellId, (s) => !s.alive, `${client} mcp list ended`);
      const text = await output(agent.shellId);
      fs.writeFileSync(path.join(SCREENS, `${client}-mcp-list.txt`), text);
      expect(text, client).toMatch(connected);
      expect(ended.status).toMatchObject({ state: 'exited', reason: 'exit code 0' });
    }
  });

  it("Codex takes the room's server for the run (its mcp list shows it, bearer token from the environment); it connects only in a signed-in session", { timeout: 60_000 }, async () => {
    const { agent } = await start({ client: 'codex', args: ['mcp', 'list'] });
    await until(agent.shellId, (s) => !s.alive, 'codex mcp list ended');
    const text = await output(agent.shellId);
    fs.writeFileSync(path.join(SCREENS, 'codex-mcp-list.txt'), text);
    expect(text).toMatch(/commonroom\s+http:\/\/127\.0\.0\.1:\d+\/mcp\s+COMMONROOM_TOKEN\s+enabled\s+Bearer token/);
    expect(text).toMatch(/\bmine\b/); // the user's own server is still there beside it
  });

  it("Claude Code connects to the room with --mcp-config (print mode, as far as it gets without an account); interactive, it gets to its welcome and its network check, and the room reads it exited", { timeout: 120_000 }, async () => {
    const { agent } = await start({ client: 'claude-code', args: ['-p', 'hello', '--output-format', 'stream-json', '--verbose'] });
    // the room sees the client's own MCP session, under the run's participant, named by the client itself
    const deadline = Date.now() + 60_000;
    let sessions: { client?: string | null }[] = [];
    while (Date.now() < deadline) {
      const { participants } = await api<{ participants: { name: string; sessions: { client?: string | null }[] }[] }>('participant_activity', {});
      sessions = participants.find((p) => p.name === agent.participant)?.sessions ?? [];
      if (sessions.some((s) => /^claude-code \d/.test(s.client ?? ''))) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(sessions.map((s) => s.client)).toEqual(expect.arrayContaining([expect.stringMatching(/^claude-code \d+\.\d+\.\d+/)]));
    expect(tokensOnCommandLines()).toEqual([]);
    // its run files name the token's variable, never the token, and only their owner reads them
    const runs = path.join(home.paths.dataDir, 'agent-runs');
    const files = fs.readdirSync(runs).flatMap((d) => fs.readdirSync(path.join(runs, d)).map((f) => path.join(runs, d, f)));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect(fs.statSync(f).mode & 0o777, f).toBe(0o600);
      expect(fs.readFileSync(f, 'utf8'), f).not.toMatch(/cr_[A-Za-z0-9_-]{20,}/);
    }
    const stopped = await api<{ agent: AgentRunView; revoked: boolean }>('agent_stop', { shellId: agent.shellId, revoke: true });
    expect(stopped.revoked).toBe(true);

    const interactive = (await start({ client: 'claude-code' })).agent;
    expect(interactive.participant).toBe('claude-code-2');
    const ended = await until(interactive.shellId, (s) => !s.alive, 'interactive Claude Code ended');
    fs.writeFileSync(path.join(SCREENS, 'claude-code-offline.txt'), await screen(interactive.shellId));
    expect(await output(interactive.shellId)).toMatch(/Welcome\s*to\s*Claude\s*Code/);
    expect(ended.status).toMatchObject({ state: 'exited', reason: 'exit code 1' });
  });

  it("Gemini CLI, Codex and opencode, started interactively, are read from their real screens (Gemini CLI and Codex ask the person to sign in, opencode idles at its prompt); the user's own configuration is untouched", { timeout: 150_000 }, async () => {
    for (const client of ['gemini-cli', 'codex', 'opencode'] as const) {
      const { agent } = await start({ client });
      // whatever it shows first, once quiet the room has read a status from it
      let settled = await until(agent.shellId, (s) => s.status.state !== 'working' || !s.alive, `${client} settled`, 45_000);
      if (client === 'opencode') {
        // it asks its terminal a dozen things and draws only seconds later (the room's screen answers it, with
        // no one watching): quiet on a blank screen first, then at its own prompt
        await expect.poll(() => screen(agent.shellId), { timeout: 45_000, interval: 500 }).toMatch(/Ask anything/);
        settled = await until(agent.shellId, (s) => s.status.state !== 'working' || !s.alive, `${client} settled at its prompt`, 45_000);
      }
      fs.writeFileSync(path.join(SCREENS, `${client}-start.txt`), `${JSON.stringify(settled.status)}\n${await screen(agent.shellId)}`);
      // signing in is the person's part: Gemini CLI and Codex ask for it; opencode waits at its prompt for a task
      expect(settled.status, client).toMatchObject({ state: client === 'opencode' ? 'idle' : 'waiting' });
      await api('agent_stop', { shellId: agent.shellId, revoke: true });
    }
    const after = digest();
    for (const file of Object.keys(USER_CONFIG)) {
      expect(after[file], `${file} (its MCP servers) changed:\n${fs.readFileSync(path.join(clientHome, file), 'utf8')}`).toBe(before[file]);
    }
  });
});
