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
 * Issue 42's Must show for graphs: through the MCP door with a real SDK client, a 50-stage graph split across
 * this machine and two hosts with dependencies between them; the SSH connections killed mid-run (`ssh -O exit`)
 * and the room (a real `commonroom serve`) SIGKILLed and restarted while stages run on the hosts — some of them
 * ending while no room watches; then a host made unreachable (its sshd stopped) shows as such, not failed, and
 * recovers. Every stage ends exactly once (each stage's process appends its id to a file where it ran: one line
 * each), every log is complete (each numbered line once, in order), every exit code is the one its command gave.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-restart';
const HOSTS = { devbox: USER, gpubox: `${USER}-g` } as const;
type Alias = keyof typeof HOSTS | 'here';
let hosts: SshHosts;
let sshDir: string;
let home: TestHome;
let serve: ServeProcess;
let agent: Client;
let token: string;
let localWork: string;
/** This run's own folder and gates on the hosts (another run may share the test accounts). */
const RUN = `${process.pid}-${Date.now().toString(36)}`;

interface Stage {
  id: string;
  state: string;
  exitCode: number | null;
  errorCode: string | null;
  message?: string;
  host?: string;
  hostReachable?: boolean;
}
interface Planned {
  id: string;
  where: Alias;
  dependsOn: string[];
  lines: number;
  exit: number;
  /** Waits for this gate file (in its account's work folder) after half its lines. */
  gate?: string;
}

const homeOf = (alias: keyof typeof HOSTS) => `/home/${HOSTS[alias]}`;
const workOf = (where: Alias) => (where === 'here' ? localWork : path.join(homeOf(where), `work-${RUN}`));

/** A stage's command: its numbered lines (half before its gate, if it has one), its id appended to `runs` where it ran, its exit code. */
function commandOf(p: Planned): string {
  const half = p.gate ? Math.floor(p.lines / 2) : p.lines;
  const print = (from: number, to: number) => `i=${from}; while [ $i -le ${to} ]; do echo "${p.id} line $i"; i=$((i+1)); done`;
  const parts = [`echo ${p.id} >> runs`, print(1, half)];
  if (p.gate) parts.push(`while [ ! -e ${p.gate} ]; do sleep 0.1; done`, print(half + 1, p.lines));
  parts.push(`exit ${p.exit}`);
  return parts.join('; ');
}

/** The 50 stages: 1 start, 16 quick ones on the hosts, 9 here after them, 8 gated ones on the hosts (each after a stage of the OTHER host), 15 after those, one end. */
function plan(): Planned[] {
  const stages: Planned[] = [{ id: 'start', where: 'here', dependsOn: [], lines: 20, exit: 0 }];
  for (const alias of ['devbox', 'gpubox'] as const) {
    for (let i = 1; i <= 8; i++) stages.push({ id: `a-${alias}-${i}`, where: alias, dependsOn: ['start'], lines: 150, exit: i === 8 ? 7 : 0 });
  }
  for (let i = 1; i <= 9; i++) stages.push({ id: `m-${i}`, where: 'here', dependsOn: [`a-devbox-${(i % 7) + 1}`, `a-gpubox-${(i % 7) + 1}`], lines: 50, exit: 0 });
  for (const [alias, other] of [['devbox', 'gpubox'], ['gpubox', 'devbox']] as const) {
    for (let i = 1; i <= 4; i++) {
      stages.push({ id: `b-${alias}-${i}`, where: alias, dependsOn: [`a-${other}-${i}`], lines: 400, exit: i === 4 ? 5 : 0, gate: `gate-${alias}-${RUN}` });
    }
  }
  const wheres: Alias[] = ['here', 'devbox', 'gpubox'];
  for (let i = 1; i <= 15; i++) {
    const b = `b-${i % 2 === 0 ? 'devbox' : 'gpubox'}-${(i % 3) + 1}`;
    stages.push({ id: `c-${i}`, where: wheres[i % 3] as Alias, dependsOn: [b, `m-${(i % 9) + 1}`], lines: 100, exit: 0 });
  }
  stages.push({ id: 'end', where: 'here', dependsOn: ['c-1', 'c-2', 'c-3'], lines: 10, exit: 0 });
  return stages;
}

async function tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await agent.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

async function connect(): Promise<void> {
  agent = new Client({ name: 'stages-restart-test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await agent.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
}

/** Reads the graph (waiting on its changes) until `done` says so. */
async function until(graphId: string, done: (stages: Stage[]) => boolean): Promise<Stage[]> {
  for (;;) {
    const s = await tool<{ stages: Stage[] }>('tasks_status', { graphId });
    if (done(s.stages)) return s.stages;
    await tool('tasks_status', { graphId, waitMs: 1000, stages: false });
  }
}

async function logOf(graphId: string, stageId: string): Promise<string> {
  let cursor = 'start';
  let text = '';
  for (;;) {
    const s = await tool<{ log: { records?: { text: string; stream: string }[]; nextCursor: string; more: boolean } }>('tasks_status', { graphId, stageId, cursor, maxBytes: 65536 });
    text += (s.log.records ?? []).filter((r) => r.stream !== 'runner').map((r) => r.text).join('');
    if (!s.log.more) return text;
    cursor = s.log.nextCursor;
  }
}

const sshExit = (alias: string) =>
  spawnSync('ssh', ['-F', hosts.configFile, '-o', `ControlPath=${path.join(home.paths.configDir, 'ssh', '%C')}`, '-O', 'exit', alias], { encoding: 'utf8' });
const gatedRunning = (alias: keyof typeof HOSTS) => spawnSync('pgrep', ['-u', HOSTS[alias], '-f', `gate-${alias}-${RUN}`], { encoding: 'utf8' }).stdout.trim() !== '';
const ended = (s: Stage) => !['pending', 'running'].includes(s.state);

function openGate(alias: keyof typeof HOSTS): void {
  const gate = path.join(workOf(alias), `gate-${alias}-${RUN}`);
  fs.writeFileSync(gate, '');
  spawnSync('chown', [`${HOSTS[alias]}:`, gate]);
}

describe.skipIf(unavailable !== null)(`a 50-stage graph across hosts survives dropped links and a killed room${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-restart-'));
    const profile = ['export PATH="$HOME/tools/bin:$PATH"'];
    // as root each host is a network namespace of its own, from which this machine's loopback (the room's
    // endpoint) cannot be reached: the hosts' work goes on over the room's SSH links alone
    hosts = await startSshHosts(
      sshDir,
      Object.entries(HOSTS).map(([alias, user]) => ({ alias, user, profile, tools: { commonroom: COMMONROOM_BIN } })),
      [],
      { netns: true },
    );
    console.log(`[stages-restart] hosts: ${hosts.placement}`);
    for (const alias of Object.keys(HOSTS) as (keyof typeof HOSTS)[]) {
      const work = workOf(alias);
      fs.rmSync(work, { recursive: true, force: true });
      fs.mkdirSync(work);
      spawnSync('chown', ['-R', `${HOSTS[alias]}:`, work]);
    }
    home = makeHome();
    home.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    localWork = path.join(home.root, 'work');
    fs.mkdirSync(localWork);
    serve = await startServe(home);
    for (const alias of Object.keys(HOSTS)) expect(runCe(home, ['host', 'add', alias]).status).toBe(0);
    if (hosts.placement.startsWith('each host')) {
      // as from another machine: the room's endpoint on this machine's loopback cannot be reached from a host
      const probe = spawnSync('ssh', [...hosts.sshArgs('devbox'), `exec 3<>/dev/tcp/127.0.0.1/${new URL(serve.mcpUrl).port}`]);
      expect(probe.status, "the room's endpoint, tried from devbox").not.toBe(0);
    }
    const added = runCe(home, ['participant', 'add', 'builder', '--can', 'read,write', '--json']);
    token = (JSON.parse(added.stdout) as { token: string }).token;
    await connect();
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    if (serve) await stopServe(serve);
    if (hosts) {
      // the nodes (and anything left of their stages) run as the test accounts
      await closeHosts(hosts, { configDir: home.paths.configDir, aliases: Object.keys(HOSTS), users: Object.values(HOSTS), dispose: true });
      for (const alias of Object.keys(HOSTS) as (keyof typeof HOSTS)[]) fs.rmSync(workOf(alias), { recursive: true, force: true });
    }
    home?.cleanup();
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('every stage ends exactly once with its exit code and its whole log', async () => {
    const planned = plan();
    expect(planned).toHaveLength(50);
    const run = await tool<{ graphId: string }>('tasks_run', {
      name: 'fifty across three machines',
      maxParallel: 8,
      stages: planned.map((p) => ({
        id: p.id,
        command: commandOf(p),
        dependsOn: p.dependsOn,
        ...(p.where === 'here' ? { cwd: localWork } : { host: p.where, cwd: `work-${RUN}` }),
      })),
    });
    const { graphId } = run;

    // mid-run: every gated stage on both hosts is running (half its lines out), nothing else is
    const gated = new Set(planned.filter((p) => p.gate).map((p) => p.id));
    await until(graphId, (stages) => stages.every((s) => (gated.has(s.id) ? s.state === 'running' : s.state !== 'running')));
    for (const alias of Object.keys(HOSTS) as (keyof typeof HOSTS)[]) expect(gatedRunning(alias)).toBe(true);

    // the links to both hosts are killed, then the room itself
    for (const alias of Object.keys(HOSTS)) expect(sshExit(alias).status).toBe(0);
    await agent.close();
    await stopServe(serve, 'SIGKILL');

    // while no room runs, devbox's gated stages go on and end there
    openGate('devbox');
    while (gatedRunning('devbox')) await new Promise((r) => setTimeout(r, 100));

    serve = await startServe(home);
    await connect();
    // the room adopted them: devbox's ended while it was away, each exactly as it ended there
    await until(graphId, (stages) => stages.filter((s) => s.id.startsWith('b-devbox')).every(ended));

    // gpubox becomes unreachable: its stages are unknown, not failed; they end there meanwhile; it comes back
    await hosts.stop();
    expect(sshExit('gpubox').status).toBe(0);
    sshExit('devbox');
    const away = await until(graphId, (stages) => stages.some((s) => s.host === 'gpubox' && s.state === 'running' && s.hostReachable === false));
    for (const s of away.filter((x) => x.id.startsWith('b-gpubox'))) expect(s).toMatchObject({ state: 'running', hostReachable: false });
    const listed = JSON.parse(runCe(home, ['host', 'list', '--json']).stdout) as { hosts: { alias: string; link?: { reachable: boolean; error: string | null } }[] };
    expect(listed.hosts.find((h) => h.alias === 'gpubox')?.link).toMatchObject({ reachable: false });
    openGate('gpubox');
    while (gatedRunning('gpubox')) await new Promise((r) => setTimeout(r, 100));
    await hosts.restart();

    const final = await until(graphId, (stages) => stages.every(ended));
    const back = JSON.parse(runCe(home, ['host', 'list', '--json']).stdout) as { hosts: { alias: string; link?: { reachable: boolean } }[] };
    expect(back.hosts.find((h) => h.alias === 'gpubox')?.link).toMatchObject({ reachable: true });
    const byId = new Map(final.map((s) => [s.id, s]));
    for (const p of planned) {
      const s = byId.get(p.id) as Stage;
      // every stage ran (none skipped: no failing stage has dependents), with the exit code its command gave
      const want = p.exit === 0 ? { state: 'completed', message: undefined } : { state: 'failed', message: `exited with code ${p.exit}` };
      expect({ id: s.id, state: s.state, exitCode: s.exitCode, message: s.message }).toEqual({ id: p.id, exitCode: p.exit, ...want });
      if (p.where !== 'here') expect(s).toMatchObject({ host: p.where, hostReachable: true });
    }
    // exactly once: each stage's process appended its id once, where it ran
    for (const where of ['here', 'devbox', 'gpubox'] as const) {
      const runs = fs.readFileSync(path.join(workOf(where), 'runs'), 'utf8').trim().split('\n').sort();
      expect(runs).toEqual(planned.filter((p) => p.where === where).map((p) => p.id).sort());
    }
    // logs complete: every numbered line once, in order (those written while the room was down and while gpubox was away too)
    for (const p of planned) {
      const expected = Array.from({ length: p.lines }, (_, i) => `${p.id} line ${i + 1}`).join('\n');
      expect({ id: p.id, log: (await logOf(graphId, p.id)).trimEnd() }).toEqual({ id: p.id, log: expected });
    }
  }, 300_000);
});
