import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { closeHosts, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * A shell on a host outlives the room (issue 42, Deliver 4): the room process SIGKILLed and started again adopts
 * the shells it had placed on its hosts — the same ids, the same owners — from the host's node, which kept them
 * running, so shell_list, shell_io and shell_close work on them again; another agent still cannot see them.
 * The real `commonroom serve`, a real MCP SDK client, real OpenSSH.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-reshell';
let hosts: SshHosts;
let sshDir: string;
let home: TestHome;
let serve: ServeProcess;
let tokens: Record<string, string> = {};
const clients: Client[] = [];

async function connect(name: string): Promise<Client> {
  const client = new Client({ name: `restart-${name}`, version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${tokens[name]}` } } }));
  clients.push(client);
  return client;
}

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

describe.skipIf(unavailable !== null)(`shells on a host are adopted again by a room that restarted${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-reshell-'));
    hosts = await startSshHosts(sshDir, [{ alias: 'devbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }]);
    home = makeHome();
    home.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    serve = await startServe(home);
    expect(runCe(home, ['host', 'add', 'devbox']).status).toBe(0);
    for (const name of ['builder', 'other']) {
      const added = runCe(home, ['participant', 'add', name, '--can', 'read,write', '--json']);
      tokens = { ...tokens, [name]: (JSON.parse(added.stdout) as { token: string }).token };
    }
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    if (serve) await stopServe(serve);
    if (hosts) await closeHosts(hosts, { configDir: home.paths.configDir, aliases: ['devbox'], users: [USER] });
    home?.cleanup();
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('the room SIGKILLed and restarted: the same shell id reads on, types, lists and closes, for its owner only', async () => {
    let agent = await connect('builder');
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { host: 'devbox', name: 'long job' });
    await tool(agent, 'shell_io', { shellId: shell.id, text: 'echo "before-$((6*7))"; sleep 1; echo "during-$((6*8))"\n', wait: { until: 'match', pattern: '^before-42', timeoutMs: 15_000 } });

    // the room dies at once (no goodbye to the node): the shell goes on there
    await stopServe(serve, 'SIGKILL');
    serve = await startServe(home);
    agent = await connect('builder');

    const listed = await tool<{ shells: { id: string; host?: string; owner: string; alive: boolean }[] }>(agent, 'shell_list', {});
    expect(listed.shells.find((s) => s.id === shell.id)).toMatchObject({ host: 'devbox', owner: 'builder', alive: true });
    // what it printed before the restart and while no room ran, read by the same id
    const read = await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '^during-48', timeoutMs: 15_000 } });
    const all = await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start' });
    expect(all.output).toContain('before-42');
    expect(read.output + all.output).toContain('during-48');
    const typed = await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, text: 'echo "after-$((6*9))"\n', wait: { until: 'match', pattern: '^after-54', timeoutMs: 15_000 } });
    expect(typed.output).toContain('after-54');

    // still its owner's: another agent neither lists nor reads it
    const other = await connect('other');
    const theirs = await tool<{ shells: { id: string }[] }>(other, 'shell_list', {});
    expect(theirs.shells.some((s) => s.id === shell.id)).toBe(false);
    await expect(tool(other, 'shell_io', { shellId: shell.id, cursor: 'start' })).rejects.toThrow(/unknown shell/);

    const closed = await tool<{ shellId: string }>(agent, 'shell_close', { shellId: shell.id });
    expect(closed.shellId).toBe(shell.id);
    const after = await tool<{ shells: { id: string }[] }>(agent, 'shell_list', {});
    expect(after.shells.some((s) => s.id === shell.id)).toBe(false);

    // and a room started once more has nothing left to adopt
    await stopServe(serve, 'SIGKILL');
    serve = await startServe(home);
    agent = await connect('builder');
    const last = await tool<{ shells: { id: string }[] }>(agent, 'shell_list', {});
    expect(last.shells.some((s) => s.id === shell.id)).toBe(false);
  }, 120_000);
});
