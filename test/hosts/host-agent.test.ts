import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvidenceFile, HandoffView, MergePreview } from '../../src-main/common/handoff-dto';
import { GIT_IDENTITY, git, makeRepo } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { BIN_CE } from '../helpers/env';
import { closeMasters, closeRoomAndHost, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * An agent started on a host (issue 42, Must show: "a handoff on a host: worktree there, agent started there,
 * evidence, review, approve and merge"). agent_start with a task whose worktree is on the host: the room
 * forwards its endpoint to the host's loopback over the link's own SSH connection, the host's node writes the
 * client's run files there and starts it in a terminal of the room's; the agent — a stand-in using the real MCP
 * SDK client from its environment's URL and token — commits in its worktree and completes its handoff; the
 * review reads the fetched work, and approve-and-merge lands it here. As root the host is a network namespace of
 * its own, from which this machine's loopback cannot be reached: the agent reaches the room through the forward
 * alone. Real OpenSSH: a private sshd.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-agent';
const HOME = `/home/${USER}`;
const HOST_REPO = `${HOME}/project`;
const AGENT_SCRIPT = `${HOME}/standin-agent.mjs`;
let hosts: SshHosts;
let sshDir: string;
let runner: TestRunner;
let laptopRepo: string;
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input as never);

/** A request to the room's endpoint here with a Host header of our choosing: its status and body. */
function rawMcp(hostHeader: string, token: string): Promise<{ status: number; body: string }> {
  const port = Number(new URL(runner.running.mcpUrl).port);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { Host: hostHeader, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (b: Buffer) => (text += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `ce` against the room this test process serves (it answers while ce waits: never a synchronous spawn). */
function runCe(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN_CE, ...args], { env: runner.home.env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** What a process of this machine was started with: its command line and environment (read as root). */
function procs(): { pid: string; cmdline: string; environ: string }[] {
  const out: { pid: string; cmdline: string; environ: string }[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      out.push({ pid, cmdline: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'), environ: fs.readFileSync(`/proc/${pid}/environ`, 'utf8') });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/**
 * The stand-in client: what any MCP client the room starts does with its run's environment. It connects to
 * COMMONROOM_MCP_URL with COMMONROOM_TOKEN (the real SDK client, from this checkout), says which room answered,
 * commits in its worktree, then waits for a line typed into its terminal before it completes its handoff.
 */
function standinScript(): string {
  const sdk = import.meta.resolve('@modelcontextprotocol/client');
  return `import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from ${JSON.stringify(sdk)};
const { COMMONROOM_MCP_URL: url, COMMONROOM_TOKEN: token, COMMONROOM_HANDOFF: handoffId, COMMONROOM_MCP_CONFIG: config } = process.env;
const say = (line) => process.stdout.write(line + '\\n');
say('URL=' + url);
say('CONFIG=' + config);
const client = new Client({ name: 'host-agent-standin', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer ' + token } } }));
const info = await client.callTool({ name: 'room_info', arguments: {} });
say('ROOM=' + info.structuredContent.room.id);
fs.appendFileSync('src/app.txt', 'two from the host\\n');
const id = ['-c', 'user.name=${GIT_IDENTITY.GIT_AUTHOR_NAME}', '-c', 'user.email=${GIT_IDENTITY.GIT_AUTHOR_EMAIL}'];
execFileSync('git', ['add', '-A']);
execFileSync('git', [...id, 'commit', '-q', '-m', 'Work of the agent on the host']);
say('COMMITTED as ' + execFileSync('whoami', { encoding: 'utf8' }).trim());
process.stdin.setEncoding('utf8');
process.stdin.once('data', async (line) => {
  say('GO ' + line.trim());
  const done = await client.callTool({ name: 'handoff_complete', arguments: { handoffId, result: 'done by the agent on the host' } });
  say('COMPLETED ' + (done.isError ? done.content[0].text : done.structuredContent.handoff.status));
});
`;
}

describe.skipIf(unavailable !== null)(`an agent started on a host, through its forward${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-agent-'));
    hosts = await startSshHosts(sshDir, [{ alias: 'agentbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }], [], { netns: true });
    console.log(`[host-agent] hosts: ${hosts.placement}`);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    runner = await startTestRunner();
    laptopRepo = makeRepo(path.join(runner.home.root, 'laptop-repo'), { 'README.md': '# app\n', 'src/app.txt': 'one\n' });
    fs.rmSync(HOST_REPO, { recursive: true, force: true });
    execFileSync('git', ['clone', '-q', laptopRepo, HOST_REPO]);
    fs.writeFileSync(AGENT_SCRIPT, standinScript());
    execFileSync('chown', ['-R', `${USER}:`, HOST_REPO, AGENT_SCRIPT]);
    await call('host_add', { alias: 'agentbox' });
  }, 90_000);

  afterAll(async () => {
    await closeRoomAndHost(hosts, runner, 'agentbox', USER, savedConfig);
    fs.rmSync(HOST_REPO, { recursive: true, force: true });
    fs.rmSync(AGENT_SCRIPT, { force: true });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('starts the agent in its worktree on the host, reaching the room only through the forward; its work is reviewed and merged here', async () => {
    const roomPort = new URL(runner.running.mcpUrl).port;
    if (hosts.placement.startsWith('each host')) {
      // as from another machine: the room's endpoint on this machine's loopback cannot be reached from the host
      const probe = spawnSync('ssh', [...hosts.sshArgs('agentbox'), `exec 3<>/dev/tcp/127.0.0.1/${roomPort}`]);
      expect(probe.status, "the room's endpoint, tried from agentbox").not.toBe(0);
    }
    const base = git(laptopRepo, 'rev-parse', 'HEAD');
    const { agent } = await call('agent_start', { client: 'command', command: ['node', AGENT_SCRIPT], task: 'Add a line on the dev box', repo: laptopRepo, host: 'agentbox', hostRepo: HOST_REPO });
    const handoffId = agent.handoffId as string;
    expect(agent).toMatchObject({ host: 'agentbox', client: 'command', shell: { host: 'agentbox' } });
    const { handoff: accepted } = await call('handoff_get', { handoffId });
    const folder = accepted.workspace?.path as string;
    expect(accepted.workspace).toMatchObject({ host: 'agentbox', hostRepo: HOST_REPO, state: 'ready' });
    expect(agent.cwd).toBe(folder);
    expect(folder.startsWith(`${HOME}/`)).toBe(true);

    // the agent, on the host, reached this room (its room id) through 127.0.0.1:PORT there, and committed
    const output = async () => (await call('shell_io', { shellId: agent.shellId, cursor: 'start' })).output;
    await expect.poll(output, { timeout: 30_000, interval: 250 }).toMatch(/COMMITTED as crhost-agent/);
    const seen = await output();
    expect(seen).toContain(`ROOM=${runner.running.engine.room.id}`);
    const url = /URL=(\S+)/.exec(seen)?.[1] as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const forwarded = new URL(url).host;
    expect(forwarded).not.toBe(`127.0.0.1:${roomPort}`);

    // ready for review? its client sits idle with a commit in its worktree: read on the host, by its node
    const reviewOf = async () => (await call('agent_list', {})).agents.find((a) => a.shellId === agent.shellId)?.review ?? null;
    await expect.poll(reviewOf, { timeout: 30_000, interval: 250 }).toMatchObject({ handoffId, commits: 1 });
    const readyHead = (await reviewOf())?.head;

    // its terminal is a shell of the room on the host (shell_list, with its agent), listed among the room's agents
    const listed = (await call('shell_list', {})).shells.find((s) => s.id === agent.shellId);
    expect(listed).toMatchObject({ host: 'agentbox', owner: agent.participant, alive: true, agent: { client: 'command', participant: agent.participant } });
    expect((await call('agent_list', {})).agents.find((a) => a.shellId === agent.shellId)).toMatchObject({ host: 'agentbox', handoffId });

    // its run files: a private folder on the host (0700, the account's), the config naming the token's variable;
    // the token itself in the run's environment only, on no command line of this machine (the host's included)
    const config = /CONFIG=(\S+)/.exec(seen)?.[1] as string;
    const runDir = path.dirname(config);
    expect(runDir.startsWith(`${HOME}/`)).toBe(true);
    const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
    expect(fs.statSync(runDir)).toMatchObject({ uid });
    expect(fs.statSync(runDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
    const running = procs().find((p) => p.environ.includes(`COMMONROOM_HANDOFF=${handoffId}`) && p.cmdline.includes(AGENT_SCRIPT));
    const token = /(?:^|\0)COMMONROOM_TOKEN=([^\0]+)/.exec(running?.environ ?? '')?.[1] as string;
    expect(token, 'the token in the agent\'s environment').toBeTruthy();
    expect(fs.readFileSync(config, 'utf8')).not.toContain(token);
    expect(fs.readFileSync(config, 'utf8')).toContain('${COMMONROOM_TOKEN}');
    expect(procs().filter((p) => p.cmdline.includes(token)).map((p) => p.cmdline.replaceAll('\0', ' '))).toEqual([]);

    // the forwarded Host is accepted for this run's participant only; any other Host is still refused
    const lead = await call('participant_add', { name: 'lead', capabilities: ['read', 'write'] });
    const accepted2 = await rawMcp(forwarded, token);
    expect(accepted2.status, accepted2.body).not.toBe(403);
    expect(accepted2.body).not.toMatch(/forbidden/);
    const other = await rawMcp(forwarded, lead.token);
    expect(other.status).toBe(403);
    expect(other.body).toMatch(/that forward is for .*'s run only/);
    const unknownPort = Number(forwarded.split(':')[1]) === 65535 ? 65534 : Number(forwarded.split(':')[1]) + 1;
    for (const hostHeader of [`127.0.0.1:${unknownPort}`, `evil.example:${roomPort}`, `10.0.0.1:${forwarded.split(':')[1]}`]) {
      const refused = await rawMcp(hostHeader, token);
      expect(refused.status, hostHeader).toBe(403);
      expect(refused.body).toMatch(/forbidden Host header/);
    }

    // typed into its terminal here, through the room: it completes its handoff, and its run ends there
    await call('shell_io', { shellId: agent.shellId, text: 'go\n' });
    await expect.poll(async () => (await call('handoff_get', { handoffId })).handoff.status, { timeout: 30_000, interval: 250 }).toBe('result_ready');
    // completing ended its terminal there; the run ended as a local run does, and its forward with it
    await expect.poll(async () => (await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId), { timeout: 30_000, interval: 250 }).toBe(false);
    const { events } = await call('workspace_history', { limit: 200 });
    expect(events.some((e) => e.kind === 'agent.ended' && e.subject === agent.participant && (e.data as { shellId?: string }).shellId === agent.shellId)).toBe(true);
    const after = await rawMcp(forwarded, token);
    expect(after.status).toBe(403);
    expect(after.body).toMatch(/forbidden Host header/);
    await expect.poll(() => fs.existsSync(runDir), { timeout: 10_000 }).toBe(false);
    const still = spawnSync('ssh', [...hosts.sshArgs('agentbox'), `exec 3<>/dev/tcp/127.0.0.1/${forwarded.split(':')[1]}`]);
    expect(still.status, 'the forward, after the run ended').not.toBe(0);

    // the review: the work fetched here, its evidence and preview; approve and merge lands the reviewed commit
    const { handoff: done } = await call('handoff_get', { handoffId });
    const reviewed = done.workspace?.evidence?.head as string;
    expect(reviewed).not.toBe(base);
    expect(readyHead).toBe(reviewed);
    expect(done.workspace?.evidence?.commits.map((c) => c.subject)).toEqual(['Work of the agent on the host']);
    const page = await call('handoff_evidence', { handoffId });
    const files = page.files as EvidenceFile[];
    expect(files.map((f) => f.path)).toEqual(['src/app.txt']);
    expect(files[0]?.patch).toContain('+two from the host');
    const { preview } = (await call('handoff_preview', { handoffId })) as { preview: MergePreview };
    expect(preview).toMatchObject({ head: reviewed, into: 'main', merge: 'fast-forward', conflicts: [] });
    const approved = await call('handoff_approve', { handoffId, merge: true, commit: reviewed });
    expect(approved.merged).toMatchObject({ into: 'main', commit: reviewed, fastForward: true });
    expect(git(laptopRepo, 'rev-parse', 'main')).toBe(reviewed);
    expect(fs.readFileSync(path.join(laptopRepo, 'src', 'app.txt'), 'utf8')).toBe('one\ntwo from the host\n');
    expect(((await call('handoff_get', { handoffId })).handoff as HandoffView).status).toBe('approved');
  }, 180_000);

  it('refuses a host the room does not have, hostRepo without a host, and a task in a repository there without hostRepo, leaving no run behind', async () => {
    await expect(call('agent_start', { client: 'command', command: ['node', AGENT_SCRIPT], cwd: '.', host: 'nobox' })).rejects.toThrow(/no host named "nobox"/);
    await expect(call('agent_start', { client: 'command', command: ['node', AGENT_SCRIPT], task: 't', repo: laptopRepo, hostRepo: HOST_REPO })).rejects.toThrow(/hostRepo is the host's clone/);
    await expect(call('agent_start', { client: 'command', command: ['node', AGENT_SCRIPT], task: 't', repo: laptopRepo, host: 'agentbox' })).rejects.toThrow(/needs hostRepo/);
    // a program the host does not have: said, and the handoff made for it cancelled, its participant revoked
    const liveAgents = async () => (await call('participant_list', {})).participants.filter((p: { revokedAt: string | null; role: string }) => p.revokedAt === null && p.role === 'agent').map((p: { name: string }) => p.name);
    const before = await liveAgents();
    const handoffsBefore = (await call('handoff_list', { status: 'open', limit: 200 })).handoffs.length;
    await expect(call('agent_start', { client: 'command', command: ['no-such-agent-cli'], task: 'Nothing', host: 'agentbox', cwd: HOME })).rejects.toThrow(/not on this host's login PATH/);
    expect(await liveAgents()).toEqual(before);
    expect((await call('handoff_list', { status: 'open', limit: 200 })).handoffs.length).toBe(handoffsBefore);
  }, 60_000);

  it('ce agent start --host starts it there, in a folder of the host; --host-repo alone is a usage error', async () => {
    const bad = await runCe(['agent', 'start', 'command', '--host-repo', HOST_REPO, '--', 'true']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--host-repo is the host\'s clone for a task\'s worktree there');
    const started = await runCe(['agent', 'start', 'command', '--host', 'agentbox', '--cwd', 'project', '--json', '--', '/bin/sh', '-c', 'echo "at $(pwd) as $(whoami) via $COMMONROOM_MCP_URL"; exec sleep 120']);
    expect(started.status, started.stderr).toBe(0);
    const { agent } = JSON.parse(started.stdout) as { agent: { shellId: string; host: string; cwd: string } };
    expect(agent).toMatchObject({ host: 'agentbox', cwd: HOST_REPO });
    await expect.poll(async () => (await call('shell_io', { shellId: agent.shellId, cursor: 'start' })).output, { timeout: 20_000, interval: 250 }).toContain(`at ${HOST_REPO} as ${USER}`);
    const listed = await runCe(['agent', 'list', '--json']);
    expect((JSON.parse(listed.stdout) as { agents: { shellId: string; host?: string }[] }).agents.find((a) => a.shellId === agent.shellId)?.host).toBe('agentbox');
    // the link's connection killed (ssh -O exit) while it runs: the forward went with it, and is made again on the
    // new connection, on the same port (the run's configuration names it)
    const seen = (await call('shell_io', { shellId: agent.shellId, cursor: 'start' })).output;
    const port = new URL(/via (\S+)/.exec(seen)?.[1] as string).port;
    // (asked asynchronously: the room answering through the forward is this very process)
    const viaForward = () =>
      new Promise<string>((resolve) => {
        const probe = `node -e 'fetch("http://127.0.0.1:${port}/").then((r) => r.json()).then((j) => console.log(j.name), () => console.log("unreachable"))'`;
        execFile('ssh', [...hosts.sshArgs('agentbox'), probe], { encoding: 'utf8', timeout: 20_000 }, (_error, stdout) => resolve(stdout.trim()));
      });
    expect(await viaForward()).toBe('commonroom');
    closeMasters(hosts, runner.home.paths.configDir, ['agentbox']);
    await expect.poll(viaForward, { timeout: 45_000, interval: 500 }).toBe('commonroom');
    expect((await call('agent_list', {})).agents.find((a) => a.shellId === agent.shellId)?.shell.alive).toBe(true);
    // stopped: its terminal there ends, and the run with it
    expect((await runCe(['agent', 'stop', agent.shellId, '--revoke'])).status).toBe(0);
    await expect.poll(async () => (await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId), { timeout: 20_000, interval: 250 }).toBe(false);
  }, 60_000);
});
