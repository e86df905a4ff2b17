import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { closeHosts, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * An agent run on a host outlives the room process (issue 42, Deliver 4, for agents): `commonroom serve` stopped
 * (SIGTERM, then SIGKILL) and started again takes the run up again as the same run — the same terminal id,
 * participant and host in agent_list, its watch, its forward asked for again on the same port of the host's loopback
 * (now to the new room's port), so the client there, with the token it was started with, reaches the room again.
 * The real `commonroom serve`, the person through a real MCP SDK client and `ce`, real OpenSSH.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-adopt';
const HOME = `/home/${USER}`;
const SCRIPT = `${HOME}/asking-agent.mjs`;
let hosts: SshHosts;
let sshDir: string;
let home: TestHome;
let serve: ServeProcess;
const clients: Client[] = [];

/**
 * The stand-in client on the host: for each line typed into its terminal it asks the room (room_info) at the URL
 * and with the token of its run's environment, a new connection each time, trying again for up to 60 s while the
 * room cannot be reached, and prints what answered.
 */
function scriptText(): string {
  const sdk = import.meta.resolve('@modelcontextprotocol/client');
  return `import { Client, StreamableHTTPClientTransport } from ${JSON.stringify(sdk)};
const { COMMONROOM_MCP_URL: url, COMMONROOM_TOKEN: token } = process.env;
const say = (line) => process.stdout.write(line + '\\n');
async function ask(word) {
  for (let i = 0; ; i++) {
    try {
      const client = new Client({ name: 'asking-standin', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer ' + token } } }));
      const info = await client.callTool({ name: 'room_info', arguments: {} });
      await client.close();
      return say('ASKED ' + word + ' ROOM=' + info.structuredContent.room.id);
    } catch (error) {
      if (i >= 120) return say('FAILED ' + word + ' ' + error.message);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
say('READY ' + url);
process.stdin.setEncoding('utf8');
let chain = Promise.resolve();
process.stdin.on('data', (text) => {
  for (const word of text.split('\\n').map((w) => w.trim()).filter(Boolean)) chain = chain.then(() => ask(word));
});
`;
}

async function person(): Promise<Client> {
  const client = new Client({ name: 'adopt-person', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${serve.token}` } } }));
  clients.push(client);
  return client;
}

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

interface Run {
  shellId: string;
  participant: string;
  host?: string;
  version: string | null;
  shell: { alive: boolean; host?: string };
  watch: { onStall: string; stallMs: number };
}
/** The run as `ce agent list` shows it (the agents' methods are the person's, through the CLI and the app). */
const runOf = (shellId: string) => (JSON.parse(runCe(home, ['agent', 'list', '--json']).stdout) as { agents: Run[] }).agents.find((a) => a.shellId === shellId);

describe.skipIf(unavailable !== null)(`an agent run on a host is taken up again by a room that restarted${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-adopt-'));
    hosts = await startSshHosts(sshDir, [{ alias: 'adoptbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }]);
    fs.writeFileSync(SCRIPT, scriptText());
    spawnSync('chown', [`${USER}:`, SCRIPT]);
    home = makeHome();
    home.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    serve = await startServe(home);
    expect(runCe(home, ['host', 'add', 'adoptbox']).status).toBe(0);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    if (serve) await stopServe(serve);
    if (hosts) await closeHosts(hosts, { configDir: home.paths.configDir, aliases: ['adoptbox'], users: [USER] });
    fs.rmSync(SCRIPT, { force: true });
    home?.cleanup();
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('the same run after SIGTERM and after SIGKILL: listed, watched, its client reaching the room again through its forward with its own token', async () => {
    let me = await person();
    const roomId = (await tool<{ room: { id: string } }>(me, 'room_info', {})).room.id;
    const started = runCe(home, ['agent', 'start', 'command', '--host', 'adoptbox', '--cwd', HOME, '--on-stall', 'interrupt', '--stall-minutes', '30', '--json', '--', 'node', SCRIPT]);
    expect(started.status, started.stderr).toBe(0);
    const { agent } = JSON.parse(started.stdout) as { agent: Run };
    const ask = async (word: string) => {
      const out = await tool<{ output: string }>(me, 'shell_io', { shellId: agent.shellId, text: `${word}\n`, wait: { until: 'match', pattern: `^(ASKED|FAILED) ${word}`, timeoutMs: 60_000 } });
      const all = await tool<{ output: string }>(me, 'shell_io', { shellId: agent.shellId, cursor: 'start' });
      return (out.output + all.output).split('\n').find((l) => l.startsWith(`ASKED ${word}`) || l.startsWith(`FAILED ${word}`))?.trim();
    };
    expect(await ask('one')).toBe(`ASKED one ROOM=${roomId}`);
    const port = new URL(/READY (\S+)/.exec((await tool<{ output: string }>(me, 'shell_io', { shellId: agent.shellId, cursor: 'start' })).output)?.[1] as string).port;

    // its policies changed while it runs are the ones a restarted room keeps
    expect(runCe(home, ['agent', 'watch', agent.shellId, '--stall-minutes', '20']).status).toBe(0);

    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const before = new URL(serve.mcpUrl).port;
      await stopServe(serve, signal);
      serve = await startServe(home);
      me = await person();
      expect(new URL(serve.mcpUrl).port, 'a new room port (serve --port 0)').not.toBe(before);
      // the same run: its terminal, participant and host, alive, with its policies
      expect(runOf(agent.shellId)).toMatchObject({ participant: agent.participant, host: 'adoptbox', shell: { alive: true, host: 'adoptbox' }, watch: { onStall: 'interrupt', stallMs: 1_200_000 } });
      // its client, with the URL and token it was started with, reaches this room (the forward asked for again)
      expect(await ask(`after-${signal}`)).toBe(`ASKED after-${signal} ROOM=${roomId}`);
      const { events } = await tool<{ events: { kind: string; subject: string | null; data: { shellId?: string; host?: string } }[] }>(me, 'workspace_history', { limit: 200 });
      expect(events.filter((e) => e.kind === 'agent.adopted' && e.data.shellId === agent.shellId).length).toBeGreaterThanOrEqual(1);
    }
    // the forward on the host is the run's own port still
    const seen = (await tool<{ output: string }>(me, 'shell_io', { shellId: agent.shellId, cursor: 'start' })).output;
    expect(seen).toContain(`READY http://127.0.0.1:${port}/mcp`);

    // stopped: it ends there, and a room started once more has no such run to take up
    expect(runCe(home, ['agent', 'stop', agent.shellId]).status).toBe(0);
    await expect.poll(() => runOf(agent.shellId) ?? null, { timeout: 20_000, interval: 500 }).toBeNull();
    await stopServe(serve, 'SIGKILL');
    serve = await startServe(home);
    expect(runOf(agent.shellId) ?? null).toBeNull();
  }, 180_000);
});
