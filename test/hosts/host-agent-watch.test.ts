import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunView } from '../../src-main/common/methods/agents';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { watchReads } from '../helpers/agent-watch';
import { closeRoomAndHost, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * Stalls and usage limits of an agent started on a host (issue 43's policies, for issue 42's runs there): the
 * stand-in for Claude Code (test/engine/agents/fixtures/stand-in-client.mjs) runs on the host as `claude`, found on
 * its login PATH, playing the scene its folder names. The room reads its screen and status on its copy of the
 * terminal here, its CPU and process tree as the host's node reads them, and its policies' keys go there: what the
 * person sees (agent_list, shell_list), the events (each once) and each policy's effect on the host's terminal.
 * The room's watch looks every 100 ms; the room's clock is the test's. Real OpenSSH: a private sshd.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-watch';
const HOME = `/home/${USER}`;
const STAND_IN = path.resolve(__dirname, '../engine/agents/fixtures/stand-in-client.mjs');
let hosts: SshHosts;
let sshDir: string;
let runner: TestRunner;
let offset = 0;
const setClock = (iso: string) => (offset = Date.parse(iso) - Date.now());
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input as never);

let folders = 0;
/** Starts the stand-in on the host in a folder of its own that names its scene (a restart goes on in the same folder). */
async function start(scene: string, input: Record<string, unknown> = {}): Promise<AgentRunView> {
  const folder = `${HOME}/w-${++folders}`;
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'scene'), scene);
  spawnSync('chown', ['-R', `${USER}:`, folder]);
  return (await call('agent_start', { client: 'claude-code', host: 'watchbox', cwd: folder, cols: 100, rows: 20, ...input })).agent;
}
const { agentOf, shellOf, screen, events, kinds } = watchReads(() => runner);
/** Lets the watch look several more times: what did not happen by then does not repeat. */
const someLooks = () => new Promise((r) => setTimeout(r, 1_500));

describe.skipIf(unavailable !== null)(`an agent on a host is watched for stalls and usage limits${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-watch-'));
    hosts = await startSshHosts(sshDir, [{ alias: 'watchbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }]);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    runner = await startTestRunner({ limits: { agentWatchTickMs: 100 }, clock: () => new Date(Date.now() + offset) });
    // the stand-in, as `claude` on the host's login PATH only, its scene read from the folder it starts in
    fs.copyFileSync(STAND_IN, `${HOME}/stand-in-client.mjs`);
    fs.writeFileSync(`${HOME}/tools/bin/claude`, `#!/bin/sh\nSTAND_IN_SCENE="$(cat ./scene)" exec node "$HOME/stand-in-client.mjs" "$@"\n`, { mode: 0o755 });
    spawnSync('chown', ['-R', `${USER}:`, `${HOME}/stand-in-client.mjs`, `${HOME}/tools`]);
    await call('host_add', { alias: 'watchbox' });
  }, 90_000);

  afterAll(async () => {
    await closeRoomAndHost(hosts, runner, 'watchbox', USER, savedConfig);
    for (let i = 1; i <= folders; i++) fs.rmSync(`${HOME}/w-${i}`, { recursive: true, force: true });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('reads stalled once, terminal, CPU and process tree quiet there; one busy on the host’s CPU does not; typing into it ends the stall (policy tell)', { timeout: 90_000 }, async () => {
    const stuck = await start('stall', { stallMinutes: 0.02 });
    const busy = await start('cpu', { stallMinutes: 0.02 });
    // its client's version, asked on the host (the stand-in answers --version as the CLIs do)
    expect(stuck).toMatchObject({ host: 'watchbox', version: '0.0.1 (stand-in)', shell: { agent: { version: '0.0.1 (stand-in)' } }, watch: { onStall: 'tell', stallMs: 1200, stalled: null } });
    await expect.poll(async () => (await agentOf(stuck.shellId))?.watch.stalled, { timeout: 30_000 }).not.toBeNull();
    const listed = await agentOf(stuck.shellId);
    expect(listed?.shell.status.state).toBe('working');
    expect(Date.parse(listed?.watch.stalled?.since ?? '') - Date.parse(listed?.watch.stalled?.quietSince ?? '')).toBeGreaterThanOrEqual(1200);
    expect((await shellOf(stuck.shellId))?.condition?.stalled).toEqual(listed?.watch.stalled);
    await someLooks();
    expect(await kinds(stuck.shellId)).toEqual(['agent.stalled']);
    // silent on its terminal too, but its CPU works on the host: never stalled
    expect(await kinds(busy.shellId)).toEqual([]);
    expect((await agentOf(busy.shellId))?.watch.stalled).toBeNull();
    expect(await screen(stuck.shellId)).toContain('Working… (esc to interrupt)'); // told, nothing typed
    await call('shell_io', { shellId: stuck.shellId, text: 'go on\r' });
    await expect.poll(() => kinds(stuck.shellId), { timeout: 20_000 }).toEqual(['agent.stalled', 'agent.stall_ended']);
    expect((await shellOf(stuck.shellId))?.condition).toBeUndefined();
    for (const a of [stuck, busy]) await call('agent_stop', { shellId: a.shellId });
  });

  it('is interrupted there with its client’s key after a second look finds it still stalled (policy interrupt)', { timeout: 90_000 }, async () => {
    const agent = await start('stall', { stallMinutes: 0.04, onStall: 'interrupt' });
    await expect.poll(() => screen(agent.shellId), { timeout: 30_000 }).toContain('Interrupted by Esc');
    await expect.poll(() => kinds(agent.shellId), { timeout: 20_000 }).toEqual(['agent.stalled', 'agent.stall_interrupted', 'agent.stall_ended']);
    expect((await events(agent.shellId))[1]?.data).toMatchObject({ key: 'Esc' });
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.stalled', 'agent.stall_interrupted', 'agent.stall_ended']);
    await call('agent_stop', { shellId: agent.shellId });
  });

  it('is started again on its host going on with its conversation, as the same participant in the same folder (policy restart)', { timeout: 90_000 }, async () => {
    const agent = await start('stall', { stallMinutes: 0.02, onStall: 'restart' });
    await expect.poll(() => kinds(agent.shellId), { timeout: 30_000 }).toEqual(['agent.stalled', 'agent.stall_restarted']);
    const next = (await events(agent.shellId))[1]?.data.newShellId as string;
    const again = await agentOf(next);
    expect(again).toMatchObject({ participant: agent.participant, host: 'watchbox', cwd: agent.cwd, watch: { onStall: 'restart', stallMs: 1200 } });
    await expect.poll(() => screen(next), { timeout: 20_000 }).toContain('resumed its conversation');
    expect(await screen(next)).toMatch(/args: --continue --mcp-config=/);
    expect((await agentOf(agent.shellId)) ?? null).toBeNull();
    await call('agent_stop', { shellId: next });
  });

  it('reads limited until its reset, once, and is resumed there at the reset with its client’s continue (policy resume)', { timeout: 90_000 }, async () => {
    setClock('2026-12-05T02:00:00Z');
    const agent = await start("limit:You've hit your session limit · resets 3am (UTC)", { onLimit: 'resume' });
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.limitedUntil, { timeout: 30_000 }).toBe('2026-12-05T03:00:00.000Z');
    expect((await shellOf(agent.shellId))?.condition?.limited?.until).toBe('2026-12-05T03:00:00.000Z');
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.limited']);
    expect(await screen(agent.shellId)).not.toContain('got:'); // never before its reset
    setClock('2026-12-05T03:00:02Z');
    await expect.poll(() => screen(agent.shellId), { timeout: 20_000 }).toContain('got: continue');
    expect(await kinds(agent.shellId)).toEqual(['agent.limited', 'agent.limit_resumed']);
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.limited', 'agent.limit_resumed']);
    offset = 0;
    await call('agent_stop', { shellId: agent.shellId });
  });

  describe('bounded by its envelope', () => {
    const SCRIPTED = path.resolve(__dirname, '../helpers/scripted-otel-client.mjs');
    const envelopeOf = async (shellId: string) => (await call('spend_report', {})).envelopes.find((e) => e.target === shellId);

    it('on cost: its client’s OTLP metrics reach the room through the run’s forward, and it is interrupted there and stopped at the ceiling', { timeout: 90_000 }, async () => {
      // a folder the host's account (and its agents' sandbox there) may write
      const marks = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'host-marks-')), 'marks');
      fs.chmodSync(path.dirname(marks), 0o777);
      const { agent } = await call('agent_start', { client: 'command', command: ['node', SCRIPTED, '--export-ms', '300', '--cost', '0.01', '--turn-ms', '150', '--mark', marks], host: 'watchbox', cwd: HOME, envelope: { maxCostUsd: 0.05 } });
      expect((await call('spend_report', {})).envelopes.filter((e) => e.target === agent.shellId)).toEqual([expect.objectContaining({ scope: 'agent', maxCostMicroUsd: 50_000, state: 'active' })]);
      await expect.poll(async () => (await envelopeOf(agent.shellId))?.stopped?.limit, { timeout: 60_000, interval: 250 }).toBe('cost');
      // recorded per run: what its client on the host reported, at or past the ceiling
      const { rows } = await call('spend_report', {});
      const cost = rows.filter((r) => r.run === agent.shellId).reduce((n, r) => n + r.costMicroUsd, 0);
      expect(cost).toBeGreaterThanOrEqual(50_000);
      expect(rows.find((r) => r.run === agent.shellId)).toMatchObject({ participant: agent.participant });
      // its client's interrupt key reached it on the host first (the safe point); then its run was stopped
      await expect.poll(() => (fs.existsSync(marks) ? fs.readFileSync(marks, 'utf8') : ''), { timeout: 20_000 }).toMatch(/^interrupted\n/);
      await expect.poll(async () => (await agentOf(agent.shellId)) ?? null, { timeout: 20_000 }).toBeNull();
      fs.rmSync(path.dirname(marks), { recursive: true, force: true });
    });

    it('on idle time: read on the room’s copy of its terminal (its client at its prompt), stopped there', { timeout: 90_000 }, async () => {
      const agent = await start('idle', { envelope: { maxIdleMs: 1500 } });
      await expect.poll(async () => (await envelopeOf(agent.shellId))?.stopped?.limit, { timeout: 60_000, interval: 250 }).toBe('idle');
      expect((await envelopeOf(agent.shellId))?.stopped?.text).toMatch(new RegExp(`^${agent.participant} \\(terminal ${agent.shellId}\\) sat idle \\d+ s`));
      await expect.poll(async () => (await agentOf(agent.shellId)) ?? null, { timeout: 20_000 }).toBeNull();
    });
  });
});
