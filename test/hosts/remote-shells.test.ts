import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { closeHosts, closeMasters, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * A shell on a host through the MCP door (issue 42, Deliver 3 for shells, and the core of 4): a real MCP SDK
 * client opens a shell with `host`, types into it and reads it like any shell of the room; the SSH connection
 * killed under it (`ssh -O exit`) loses nothing; a host that cannot be reached says so, and the same shell
 * answers again when it is back. Real OpenSSH: a private sshd and a stand-in machine with Commonroom on its
 * login PATH.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-shells';
let hosts: SshHosts;
let sshDir: string;
let runner: TestRunner;
let agent: Client;
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

interface Page {
  output: string;
  cursor: string;
  nextCursor: string;
  truncated: boolean;
}

/** `seq 1 N` between two markers, typed into the shell; the cursor its output starts at. */
async function typeSeq(shellId: string, n: number): Promise<string> {
  const typed = await tool<Page>(agent, 'shell_io', { shellId, text: `printf 'SEQ%s\\n' BEGIN; seq 1 ${n}; printf 'SEQ%s\\n' END\n`, format: 'raw', maxBytes: 1 });
  return typed.cursor;
}

/**
 * Reads by cursor from `cursor` to the end marker, page after page (`between` runs between pages): the numbers
 * between the markers as seq wrote them (the terminal's \r\n made \n again), and whether any page said output was
 * lost or did not start where the last one ended.
 */
async function readSeq(shellId: string, cursor: string, maxBytes: number, between?: (page: number) => Promise<void>): Promise<{ text: string; lost: boolean }> {
  let text = '';
  let at = cursor;
  let lost = false;
  for (let page = 0; ; page++) {
    const r = await tool<Page>(agent, 'shell_io', { shellId, cursor: at, format: 'raw', maxBytes });
    if (r.truncated || r.cursor !== at) lost = true;
    text += r.output;
    at = r.nextCursor;
    if (text.includes('SEQEND')) break;
    await between?.(page);
  }
  const body = text.slice(text.indexOf('SEQBEGIN\r\n') + 'SEQBEGIN\r\n'.length, text.indexOf('SEQEND'));
  return { text: body.replace(/\r\n/g, '\n'), lost };
}

const seqText = (n: number) => `${Array.from({ length: n }, (_, i) => i + 1).join('\n')}\n`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const controlPath = () => path.join(runner.home.paths.configDir, 'ssh', '%C');
const sshControl = (op: string) => spawnSync('ssh', ['-F', hosts.configFile, '-o', `ControlPath=${controlPath()}`, '-O', op, 'devbox'], { encoding: 'utf8' });

describe.skipIf(unavailable !== null)(`shells on a host, through the MCP door${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-shells-'));
    hosts = await startSshHosts(sshDir, [
      { alias: 'devbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } },
      { alias: 'private', user: `${USER}-p`, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } },
    ]);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    runner = await startTestRunner();
    const engine = runner.running.engine;
    const operator = engine.operator();
    await engine.call(operator, 'host_add', { alias: 'devbox' });
    await engine.call(operator, 'host_add', { alias: 'private', agents: false });
    const added = await engine.call(operator, 'participant_add', { name: 'builder', capabilities: ['read', 'write'] });
    agent = new Client({ name: 'remote-test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await agent.connect(new StreamableHTTPClientTransport(runner.running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${added.token}` } } }));
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    if (runner) {
      closeMasters(hosts, runner.home.paths.configDir, ['devbox']);
      await runner.close();
    }
    if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
    else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
    if (hosts) await closeHosts(hosts, { aliases: ['devbox', 'private'], users: [USER, `${USER}-p`], ...(runner ? { nodeKey: runner.running.engine.room.id } : {}) });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('an agent opens a shell on a host, types into it and reads it; the connection killed under it loses nothing', async () => {
    const { shell } = await tool<{ shell: { id: string; host: string; owner: string; cwd: string; sandbox: string | null } }>(agent, 'shell_open', { host: 'devbox', name: 'remote build' });
    expect(shell.host).toBe('devbox');
    // an agent's shell there runs in the host's own sandbox, as an agent of the node's room
    if (fs.existsSync('/usr/bin/bwrap')) expect(shell.sandbox).toBe('bubblewrap');
    expect(shell.owner).toBe('builder');
    expect(shell.cwd.startsWith(`/home/${USER}`)).toBe(true);
    const ran = await tool<{ output: string; shellId: string }>(agent, 'shell_io', { shellId: shell.id, text: 'echo "here: $(whoami) $((6*7))"\n', wait: { until: 'match', pattern: `here: ${USER} 42`, timeoutMs: 10_000 } });
    expect(ran.shellId).toBe(shell.id);
    expect(ran.output).toContain(`here: ${USER} 42`);

    const listed = await tool<{ shells: { id: string; host?: string; alive: boolean }[] }>(agent, 'shell_list', {});
    expect(listed.shells.find((s) => s.id === shell.id)).toMatchObject({ host: 'devbox', alive: true });

    // work that runs across a dropped connection
    await tool(agent, 'shell_io', { shellId: shell.id, text: 'for i in 1 2 3 4 5; do echo "step-$i"; sleep 0.4; done; echo steps-done\n' });
    expect(sshControl('exit').status).toBe(0); // the laptop's connection to the host is gone
    const after = await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '^steps-done', timeoutMs: 15_000 } });
    const all = await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start' });
    for (let i = 1; i <= 5; i++) expect(all.output).toContain(`step-${i}`);
    expect(after.output + all.output).toContain('steps-done');

    // the shell_run tool reaches it too
    const run = await tool<{ status: string; exitCode: number | null; output: string }>(agent, 'shell_run', { shellId: shell.id, command: 'uname -s' });
    expect(run.status).toBe('finished');
    expect(run.output).toContain('Linux');
  }, 90_000);

  it("a remote shell's output is streamed here: many times its scrollback, read by cursor, arrives whole", async () => {
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { host: 'devbox', name: 'flood' });
    const n = 2_000_000; // ≈ 17 MB through the terminal: eight times the room's and the node's 2 MiB scrollbacks
    const { text, lost } = await readSeq(shell.id, await typeSeq(shell.id, n), 1024 * 1024);
    expect(lost).toBe(false);
    expect(text.length).toBe(seqText(n).length);
    expect(sha(text)).toBe(sha(seqText(n)));
    await tool(agent, 'shell_close', { shellId: shell.id });
  }, 120_000);

  it('a slow reader pauses the program writing on the host instead of losing its output', async () => {
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { host: 'devbox', name: 'slow reader' });
    const n = 1_000_000; // ≈ 7.9 MB through the terminal: more than both scrollbacks and what is in flight
    let stillWriting: boolean | null = null;
    const { text, lost } = await readSeq(shell.id, await typeSeq(shell.id, n), 256 * 1024, async (page) => {
      await new Promise((r) => setTimeout(r, page === 0 ? 1000 : 150));
      // a writer that was not held would have written its ≈ 8 MB long before: it is blocked on its terminal
      if (page === 0) stillWriting = spawnSync('pgrep', ['-u', USER, '-x', 'seq']).status === 0;
    });
    expect(stillWriting).toBe(true);
    expect(lost).toBe(false);
    expect(sha(text)).toBe(sha(seqText(n)));
    await tool(agent, 'shell_close', { shellId: shell.id });
  }, 120_000);

  it('a link dropped mid-stream resumes from the last offset received, nothing lost', async () => {
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { host: 'devbox', name: 'dropped stream' });
    const n = 2_000_000;
    const { text, lost } = await readSeq(shell.id, await typeSeq(shell.id, n), 512 * 1024, async (page) => {
      if (page === 2) expect(sshControl('exit').status).toBe(0); // the SSH connection goes, mid-stream
    });
    expect(lost).toBe(false);
    expect(sha(text)).toBe(sha(seqText(n)));
    await tool(agent, 'shell_close', { shellId: shell.id });
  }, 120_000);

  it("output the host's own scrollback let go of while the room was away is a gap, said with its size, never silently", async () => {
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { host: 'devbox', name: 'long outage' });
    const n = 1_000_000; // ≈ 7.9 MB through the terminal: far more than the node's 2 MiB scrollback
    const typed = await tool<Page>(agent, 'shell_io', { shellId: shell.id, text: `sleep 2; seq 1 ${n}; printf 'SEQ%s\\n' END\n`, format: 'raw', maxBytes: 1 });
    // the host goes away before the output starts, and stays away until the writer there ran to its end (the
    // node holds it a while for the room, then lets it run: the program is not kept waiting for a room that may
    // not come back)
    await hosts.stop();
    sshControl('exit');
    const seqRuns = () => spawnSync('pgrep', ['-u', USER, '-x', 'seq']).status === 0;
    await expect.poll(seqRuns, { timeout: 30_000, interval: 100 }).toBe(true);
    await expect.poll(seqRuns, { timeout: 90_000, interval: 250 }).toBe(false);
    await hosts.restart();

    const at = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))[2] as number;
    let cursor = typed.cursor;
    let jumped = 0;
    let text = '';
    for (;;) {
      const r = await tool<Page>(agent, 'shell_io', { shellId: shell.id, cursor, format: 'raw', maxBytes: 1024 * 1024 });
      if (r.truncated) jumped += at(r.cursor) - at(cursor);
      text += r.output;
      cursor = r.nextCursor;
      if (text.includes('SEQEND')) break;
    }
    // the reader is told where output is missing and how much, and the room says it as an event with its size
    expect(jumped).toBeGreaterThan(0);
    const db = runner.running.engine.room.db;
    const said = (db.prepare("SELECT data FROM events WHERE kind = 'host.output_lost' AND subject = 'devbox'").all() as { data: string }[]).map((e) => JSON.parse(e.data) as { shellId: string; bytes: number });
    const mine = said.filter((e) => e.shellId === shell.id);
    expect(mine.length).toBe(1);
    expect(mine[0]?.bytes).toBeGreaterThan(0);
    expect(mine[0]?.bytes).toBeLessThanOrEqual(jumped);
    // what the node still held arrived whole, to the last number
    expect(text).toContain(`\n${n}\r\n`);
    await tool(agent, 'shell_close', { shellId: shell.id });
  }, 150_000);

  it('a host the person keeps for themselves, or one not in the room, is refused to an agent with the reason', async () => {
    await expect(tool(agent, 'shell_open', { host: 'private' })).rejects.toThrow(/host private is for the person's own work/);
    await expect(tool(agent, 'shell_open', { host: 'elsewhere' })).rejects.toThrow(/no host named "elsewhere" in this room/);
    await expect(tool(agent, 'shell_open', { host: '-oProxyCommand=x' })).rejects.toThrow();
  });

  it('a host that cannot be reached says so (its shell marked, not failed), and the same shell answers when it is back', async () => {
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { host: 'devbox', name: 'survivor' });
    await tool(agent, 'shell_io', { shellId: shell.id, text: 'echo before-the-outage\n', wait: { until: 'match', pattern: '^before-the-outage', timeoutMs: 10_000 } });
    // the host goes away: sshd stops and the connection drops
    await hosts.stop();
    sshControl('exit');
    // the list asks the node: it says so once the room's link has seen the connection go
    const reachable = async () => (await tool<{ shells: { id: string; hostReachable?: boolean }[] }>(agent, 'shell_list', {})).shells.find((s) => s.id === shell.id)?.hostReachable;
    await expect.poll(reachable, { timeout: 15_000 }).toBe(false);
    // the shell's output is followed by a stream that is gone now: a read says the host is unreachable
    await expect(tool(agent, 'shell_io', { shellId: shell.id })).rejects.toThrow(/host devbox is unreachable.*unknown here until it is back/);
    // back on the same port: the same node and shell, nothing lost
    await hosts.restart();
    const back = await tool<{ output: string; alive: boolean }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start' });
    expect(back.alive).toBe(true);
    expect(back.output).toContain('before-the-outage');
    const again = await tool<{ shells: { id: string; hostReachable?: boolean }[] }>(agent, 'shell_list', {});
    expect(again.shells.find((s) => s.id === shell.id)?.hostReachable).toBe(true);
  }, 90_000);
});
