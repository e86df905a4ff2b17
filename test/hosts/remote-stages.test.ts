import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { closeHosts, closeMasters, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * Graph stages on hosts through the MCP door (issue 42, Deliver 3 and 4 for graphs): a real MCP SDK client runs
 * a graph whose stages are placed on this machine and on two hosts (a stage's own host, else its graph's),
 * with dependencies across them; each stage is a stage of the room like any other (same ids, states, exit
 * codes, logs through tasks_status), marked with its host; cancelling reaches the host's process tree; a host
 * the person keeps for themselves is refused. Real OpenSSH: a private sshd and two stand-in machines.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-stages';
let hosts: SshHosts;
let sshDir: string;
let runner: TestRunner;
let agent: Client;
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;
/** This run's own sleep lengths: processes of the test accounts are found by them (another run may share the accounts). */
const RUN = 1000 + Math.floor(Math.random() * 8000);

interface Stage {
  id: string;
  state: string;
  exitCode: number | null;
  errorCode: string | null;
  host?: string;
  hostReachable?: boolean;
}

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

async function ended(graphId: string): Promise<{ graph: { state: string }; stages: Stage[] }> {
  for (;;) {
    const s = await tool<{ graph: { state: string }; stages: Stage[] }>(agent, 'tasks_status', { graphId, waitMs: 20_000, until: 'ended' });
    if (['completed', 'failed', 'cancelled'].includes(s.graph.state)) return s;
  }
}

async function logOf(graphId: string, stageId: string): Promise<string> {
  let cursor = 'start';
  let text = '';
  for (;;) {
    const s = await tool<{ log: { records?: { text: string }[]; nextCursor: string; more: boolean } }>(agent, 'tasks_status', { graphId, stageId, cursor });
    text += (s.log.records ?? []).map((r) => r.text).join('');
    if (!s.log.more) return text;
    cursor = s.log.nextCursor;
  }
}


describe.skipIf(unavailable !== null)(`graph stages on hosts, through the MCP door${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-stages-'));
    const profile = ['export PATH="$HOME/tools/bin:$PATH"'];
    hosts = await startSshHosts(sshDir, [
      { alias: 'devbox', user: USER, profile, tools: { commonroom: COMMONROOM_BIN } },
      { alias: 'gpubox', user: `${USER}-g`, profile, tools: { commonroom: COMMONROOM_BIN } },
      { alias: 'private', user: `${USER}-p`, profile, tools: { commonroom: COMMONROOM_BIN } },
    ]);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    runner = await startTestRunner();
    const engine = runner.running.engine;
    const operator = engine.operator();
    await engine.call(operator, 'host_add', { alias: 'devbox' });
    await engine.call(operator, 'host_add', { alias: 'gpubox' });
    await engine.call(operator, 'host_add', { alias: 'private', agents: false });
    const added = await engine.call(operator, 'participant_add', { name: 'builder', capabilities: ['read', 'write'] });
    agent = new Client({ name: 'remote-stages-test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await agent.connect(new StreamableHTTPClientTransport(runner.running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${added.token}` } } }));
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    const room = runner?.running.engine.room.id;
    if (runner) {
      closeMasters(hosts, runner.home.paths.configDir, ['devbox', 'gpubox']);
      await runner.close();
    }
    if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
    else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
    if (hosts) await closeHosts(hosts, { aliases: ['devbox', 'gpubox'], users: [USER, `${USER}-g`, `${USER}-p`], ...(room ? { nodeKey: room } : {}) });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('a graph across this machine and two hosts: dependencies between them, exit codes, logs, each stage marked with its host', async () => {
    const run = await tool<{ graphId: string; stages: { id: string }[] }>(agent, 'tasks_run', {
      name: 'across',
      maxParallel: 4,
      stages: [
        { id: 'prep', command: 'echo prep-here' },
        { id: 'build', host: 'devbox', dependsOn: ['prep'], command: 'echo "built by $(whoami) in $PWD"; echo to-stderr >&2' },
        { id: 'train', host: 'gpubox', dependsOn: ['prep'], command: 'echo "gpu $(whoami)"; exit 3' },
        { id: 'after-train', dependsOn: ['train'], command: 'echo never' },
        { id: 'join', dependsOn: ['build'], command: 'echo joined' },
        { id: 'ship', host: 'gpubox', dependsOn: ['join'], command: ['sh', '-c', 'echo shipped; exit 0'] },
      ],
    });
    const done = await ended(run.graphId);
    const byId = new Map(done.stages.map((s) => [s.id, s]));
    expect(done.graph.state).toBe('failed');
    expect(byId.get('prep')).toMatchObject({ state: 'completed', exitCode: 0 });
    expect(byId.get('prep')?.host).toBeUndefined();
    expect(byId.get('build')).toMatchObject({ state: 'completed', exitCode: 0, host: 'devbox', hostReachable: true });
    expect(byId.get('train')).toMatchObject({ state: 'failed', exitCode: 3, errorCode: 'EXIT_NONZERO', host: 'gpubox' });
    expect(byId.get('after-train')).toMatchObject({ state: 'skipped', errorCode: 'UPSTREAM_FAILED' });
    expect(byId.get('join')).toMatchObject({ state: 'completed', exitCode: 0 });
    expect(byId.get('ship')).toMatchObject({ state: 'completed', exitCode: 0, host: 'gpubox' });
    // the logs of stages that ran on a host are read like any stage's: it ran there, as that account, in its home
    const build = await logOf(run.graphId, 'build');
    expect(build).toContain(`built by ${USER} in /home/${USER}`);
    expect(build).toContain('to-stderr');
    expect(await logOf(run.graphId, 'train')).toContain(`gpu ${USER}-g`);
    expect(await logOf(run.graphId, 'ship')).toContain('shipped');
  }, 120_000);

  it("a host stage's output of several MiB reaches the room whole and in order: every record once, past each read's end", async () => {
    // ~3.3 MiB of lines: the room's copy is read from the node a MiB at a time, as the node's log file holds it
    const lines = 500_000;
    const run = await tool<{ graphId: string }>(agent, 'tasks_run', { name: 'big log', stages: [{ id: 'count', host: 'devbox', command: `seq 1 ${lines}` }] });
    const done = await ended(run.graphId);
    expect(done.stages[0]).toMatchObject({ state: 'completed', exitCode: 0, host: 'devbox' });
    let cursor = 'start';
    let text = '';
    const seqs: number[] = [];
    for (;;) {
      const page = await tool<{ log: { records: { seq: number; stream: string; text: string }[]; nextCursor: string; more: boolean } }>(agent, 'tasks_status', { graphId: run.graphId, stageId: 'count', cursor, maxBytes: 65_536 });
      for (const r of page.log.records) {
        seqs.push(r.seq);
        if (r.stream === 'stdout') text += r.text;
      }
      if (!page.log.more) break;
      cursor = page.log.nextCursor;
    }
    expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(text).toBe(`${Array.from({ length: lines }, (_, i) => i + 1).join('\n')}\n`);
    // the node's records, each once and in its order (none lost or doubled where one read ended and the next began)
    expect(seqs.every((q, i) => i === 0 || q === seqs[i - 1]! + 1)).toBe(true);
  }, 120_000);

  it("a graph's host is its stages' host; cancelling reaches the host and ends the stage's process tree there", async () => {
    const run = await tool<{ graphId: string }>(agent, 'tasks_run', {
      host: 'devbox',
      stages: [{ id: 'long', command: `echo started; sleep ${RUN}1 & sleep ${RUN}2; wait` }],
    });
    for (;;) {
      const s = await tool<{ stage: { state: string }; log: { records: { text: string }[] } }>(agent, 'tasks_status', { graphId: run.graphId, stageId: 'long', cursor: 'start', waitMs: 10_000 });
      if (s.log.records.some((r) => r.text.includes('started'))) break;
    }
    const running = () => spawnSync('pgrep', ['-u', USER, '-f', `sleep ${RUN}[12]`], { encoding: 'utf8' }).stdout.trim();
    expect(running()).not.toBe('');
    const cancelled = await tool<{ changed: { id: string; to: string }[] }>(agent, 'tasks_cancel', { graphId: run.graphId });
    expect(cancelled.changed).toEqual([{ id: 'long', from: 'running', to: 'cancelled' }]);
    const done = await ended(run.graphId);
    expect(done.stages[0]).toMatchObject({ state: 'cancelled', errorCode: 'CANCELLED', host: 'devbox' });
    expect(running()).toBe('');
  }, 90_000);

  it("a stage's timeout and retries are kept on its host: each attempt in its log, the timeout's TIMEOUT here", async () => {
    const run = await tool<{ graphId: string }>(agent, 'tasks_run', {
      host: 'devbox',
      stages: [
        { id: 'flaky', command: 'echo "try $(date +%N)"; exit 1', retries: 2, retryBackoffMs: 0 },
        { id: 'slow', command: `echo begun; sleep ${RUN}3`, timeoutMs: 1500, killGraceMs: 100 },
      ],
    });
    const done = await ended(run.graphId);
    const byId = new Map(done.stages.map((s) => [s.id, s]));
    expect(byId.get('flaky')).toMatchObject({ state: 'failed', errorCode: 'EXIT_NONZERO', exitCode: 1, host: 'devbox' });
    expect(byId.get('slow')).toMatchObject({ state: 'failed', errorCode: 'TIMEOUT', host: 'devbox' });
    expect((await logOf(run.graphId, 'flaky')).match(/^try /gm)).toHaveLength(3);
    expect(spawnSync('pgrep', ['-u', USER, '-f', `sleep ${RUN}3`]).status).toBe(1);
  }, 90_000);

  it("a node that itself restarted (SIGKILLed there) reports the stage it ran as RUNNER_RESTARTED, as the local runner does, and ends its processes", async () => {
    const run = await tool<{ graphId: string }>(agent, 'tasks_run', { stages: [{ id: 'held', host: 'gpubox', command: `echo started; sleep ${RUN}4` }] });
    for (;;) {
      const s = await tool<{ log: { records: { text: string }[] } }>(agent, 'tasks_status', { graphId: run.graphId, stageId: 'held', cursor: 'start', waitMs: 10_000 });
      if (s.log.records.some((r) => r.text.includes('started'))) break;
    }
    const node = spawnSync('pgrep', ['-u', `${USER}-g`, '-f', `node --daemon --for ${runner.running.engine.room.id}`], { encoding: 'utf8' }).stdout.trim().split('\n');
    expect(node).toHaveLength(1);
    process.kill(Number(node[0]), 'SIGKILL');
    // the room's next call starts a new node there, which reconciles its journal
    const done = await ended(run.graphId);
    expect(done.stages[0]).toMatchObject({ state: 'failed', errorCode: 'RUNNER_RESTARTED', host: 'gpubox' });
    expect(spawnSync('pgrep', ['-u', `${USER}-g`, '-f', `sleep ${RUN}4`]).status).toBe(1);
  }, 90_000);

  it('a host the person takes back before a stage starts there: the stage does not start there, and says why', async () => {
    const engine = runner.running.engine;
    const gate = path.join(sshDir, 'gate-first');
    const run = await tool<{ graphId: string }>(agent, 'tasks_run', {
      stages: [
        { id: 'first', command: `while [ ! -e ${gate} ]; do sleep 0.1; done` },
        { id: 'then', host: 'devbox', dependsOn: ['first'], command: 'echo should-not-run' },
      ],
    });
    await engine.call(engine.operator(), 'host_add', { alias: 'devbox', agents: false });
    fs.writeFileSync(gate, '');
    const done = await ended(run.graphId);
    await engine.call(engine.operator(), 'host_add', { alias: 'devbox', agents: true });
    const then = done.stages.find((s) => s.id === 'then') as Stage & { message?: string };
    expect(then).toMatchObject({ state: 'failed', errorCode: 'SPAWN_FAILED', host: 'devbox' });
    expect(then.message).toMatch(/host devbox is for the person's own work/);
    // its log says so too (the node never had it: nothing ran there)
    const log = await logOf(run.graphId, 'then');
    expect(log).toMatch(/could not start on devbox: host devbox is for the person's own work/);
    expect(log).not.toContain('should-not-run');
  }, 60_000);

  it('a host the person keeps for themselves, or one not in the room, is refused to an agent with the reason; what does not travel yet says so', async () => {
    await expect(tool(agent, 'tasks_run', { host: 'private', stages: [{ id: 'a', command: 'true' }] })).rejects.toThrow(/host private is for the person's own work/);
    await expect(tool(agent, 'tasks_run', { stages: [{ id: 'a', host: 'elsewhere', command: 'true' }] })).rejects.toThrow(/no host named "elsewhere" in this room/);
    await expect(tool(agent, 'tasks_run', { stages: [{ id: 'a', host: '-oProxyCommand=x', command: 'true' }] })).rejects.toThrow();
    await expect(tool(agent, 'tasks_run', { host: 'devbox', stages: [{ id: 'a', command: 'true', tty: true }] })).rejects.toThrow(/runs on this machine only for now/);
  });
});
