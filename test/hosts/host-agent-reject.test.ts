import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEvent } from '../../src-main/common/event-text';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { closeMasters, closeRoomAndHost, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * A rejection's reason reaches an agent run on a host (issue 42, for agents there): the person sends the work
 * back through the door the UI uses (POST /api/handoff_reject with the operator's token), and the room types the
 * reason into the terminal of the run on the host as it does into a run here — one line of plain text, then Enter
 * on its own — so the agent there reads it at its prompt and goes on in the follow-up handoff. With the host out of
 * reach at that moment, nothing is typed later (no Enter without its line), an event says so and names the
 * handoff, which keeps the reason. The agent is a stand-in using the real MCP SDK client from its run's URL and
 * token; as root the host is a network namespace of its own. Real OpenSSH: a private sshd.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-reject';
const HOME = `/home/${USER}`;
const AGENT_SCRIPT = `${HOME}/standin-agent.mjs`;
/** The run's folder on the host (what its sandbox lets it write). */
const WORK = `${HOME}/work`;
/** Each line the stand-in read at its prompt, one a line (what the agent on the host was told). */
const TYPED = `${WORK}/typed.txt`;
let hosts: SshHosts;
let sshDir: string;
let runner: TestRunner;
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input as never);
const typed = () => (fs.existsSync(TYPED) ? fs.readFileSync(TYPED, 'utf8') : '');

/** A call through the room's HTTP API as the person's UI makes it (POST /api/<method>, the operator's token). */
async function api<T>(method: string, body: Record<string, unknown>): Promise<T> {
  const res = await fetch(new URL(`/api/${method}`, runner.running.mcpUrl), { method: 'POST', headers: { authorization: `Bearer ${runner.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as { result?: T; error?: { message: string } };
  if (!res.ok || !answer.result) throw new Error(`${method}: ${res.status} ${answer.error?.message ?? ''}`);
  return answer.result;
}

/**
 * The stand-in client: connects to COMMONROOM_MCP_URL with COMMONROOM_TOKEN (the real SDK client), completes the
 * handoff it was started for, then reads its prompt a line at a time: each line is written to TYPED; a line that
 * sends it on ("Go on in handoff ID") has it accept and complete that follow-up.
 */
function standinScript(): string {
  const sdk = import.meta.resolve('@modelcontextprotocol/client');
  return `import fs from 'node:fs';
import readline from 'node:readline';
import { Client, StreamableHTTPClientTransport } from ${JSON.stringify(sdk)};
const { COMMONROOM_MCP_URL: url, COMMONROOM_TOKEN: token, COMMONROOM_HANDOFF: handoffId } = process.env;
const say = (line) => process.stdout.write(line + '\\n');
const client = new Client({ name: 'host-reject-standin', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer ' + token } } }));
const tool = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(r.content[0].text);
  return r.structuredContent;
};
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  fs.appendFileSync(${JSON.stringify(TYPED)}, line + '\\n');
  say('GOT<' + line + '>');
  const next = /Go on in handoff (\\S+?),/.exec(line)?.[1];
  if (!next) return;
  await tool('handoff_accept', { handoffId: next });
  const done = await tool('handoff_complete', { handoffId: next, result: 'fixed on the host' });
  say('COMPLETED ' + next + ' ' + done.handoff.status);
});
const done = await tool('handoff_complete', { handoffId, result: 'done on the host' });
say('COMPLETED ' + handoffId + ' ' + done.handoff.status);
`;
}

describe.skipIf(unavailable !== null)(`a rejection's reason typed into an agent's terminal on a host${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-reject-'));
    hosts = await startSshHosts(sshDir, [{ alias: 'rejectbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }], [], { netns: true });
    console.log(`[host-agent-reject] hosts: ${hosts.placement}`);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    runner = await startTestRunner();
    fs.rmSync(WORK, { recursive: true, force: true });
    fs.mkdirSync(WORK);
    fs.writeFileSync(AGENT_SCRIPT, standinScript());
    execFileSync('chown', [`${USER}:`, AGENT_SCRIPT, WORK]);
    await call('host_add', { alias: 'rejectbox' });
  }, 90_000);

  afterAll(async () => {
    await closeRoomAndHost(hosts, runner, 'rejectbox', USER, savedConfig);
    fs.rmSync(AGENT_SCRIPT, { force: true });
    fs.rmSync(WORK, { recursive: true, force: true });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('types the reason into the run on the host (one line, then Enter), and says so when the host cannot be reached', async () => {
    const { agent } = await call('agent_start', { client: 'command', command: ['node', AGENT_SCRIPT], task: 'Say hello from the host', host: 'rejectbox', cwd: 'work' });
    const handoffId = agent.handoffId as string;
    expect(agent).toMatchObject({ host: 'rejectbox', shell: { host: 'rejectbox' } });
    const output = async () => (await call('shell_io', { shellId: agent.shellId, cursor: 'start' })).output;
    await expect.poll(output, { timeout: 30_000, interval: 250 }).toContain(`COMPLETED ${handoffId} result_ready`);

    // the person requests changes in the UI: the reason (a newline and an escape in it) reaches the agent's prompt
    // on the host as one line of plain text, submitted; the agent goes on in the follow-up it names
    const rejected = await api<{ handoff: HandoffView; followUp: HandoffView; typedInto: number }>('handoff_reject', { handoffId, reason: 'Say it louder\nand \u001b[31mwarmer', again: true });
    expect(rejected.handoff.decision).toMatchObject({ approved: false, reason: 'Say it louder\nand \u001b[31mwarmer' });
    expect(rejected.typedInto).toBe(1);
    const next = rejected.followUp.id;
    await expect.poll(typed, { timeout: 30_000, interval: 250 }).toContain(`Go on in handoff ${next},`);
    const line = typed().split('\n')[0] as string;
    expect(line).toMatch(new RegExp(`^\\[Commonroom\\] operator requested changes on handoff ${handoffId}: Say it louder and \\[31mwarmer `));
    expect(line).not.toContain('\u001b');
    await expect.poll(output, { timeout: 30_000, interval: 250 }).toContain(`COMPLETED ${next} result_ready`);
    expect(typed().split('\n').slice(0, -1)).toHaveLength(1);

    // the host goes away (its sshd stopped, the connection dropped): the rejection is kept on the handoff, and an
    // event says the reason did not reach the agent's terminal there, naming the handoff
    await hosts.stop();
    closeMasters(hosts, runner.home.paths.configDir, ['rejectbox']);
    const reachable = async () => (await call('shell_list', {})).shells.find((s) => s.id === agent.shellId)?.hostReachable;
    await expect.poll(reachable, { timeout: 30_000, interval: 250 }).toBe(false);
    const away = await api<{ handoff: HandoffView; typedInto: number }>('handoff_reject', { handoffId: next, reason: 'Still too quiet' });
    expect(away.handoff.decision).toMatchObject({ approved: false, reason: 'Still too quiet' });
    const lost = async () => (await call('workspace_history', { limit: 200 })).events.filter((e) => e.kind === 'host.input_lost');
    await expect.poll(async () => (await lost()).length, { timeout: 60_000, interval: 250 }).toBe(1);
    const [said] = await lost();
    expect(said).toMatchObject({ subject: 'rejectbox', data: { shellId: agent.shellId, participant: agent.participant, handoffId: next } });
    expect((said?.data as { error: string }).error).toMatch(/host rejectbox is unreachable/);
    // in the room's history (Activity), where the person is told where the reason is
    expect(describeEvent(said as NonNullable<typeof said>)).toMatch(new RegExp(`^host rejectbox: the reason handoff ${next} was sent back for did not reach ${agent.participant}'s terminal there .*it is kept on the handoff, where the person sees it in its review`));
    expect((await call('handoff_get', { handoffId: next })).handoff.decision?.reason).toBe('Still too quiet');

    // back: the same run, and nothing typed there late (neither the reason nor an Enter without it)
    await hosts.restart();
    await expect.poll(async () => (await call('shell_io', { shellId: agent.shellId, cursor: 'start' })).alive, { timeout: 30_000, interval: 250 }).toBe(true);
    await call('shell_io', { shellId: agent.shellId, text: 'ping\r' });
    await expect.poll(typed, { timeout: 30_000, interval: 250 }).toContain('ping\n');
    expect(typed().split('\n').slice(1, -1)).toEqual(['ping']);
    expect(await lost()).toHaveLength(1);
  }, 180_000);
});
