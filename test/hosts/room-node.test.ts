import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_PROTOCOL } from '../../src-main/common/node-stream';
import { localNodeSocket } from '../../src-main/engine/hosts/node-forward';
import { NodeLink as RoomLink } from '../../src-main/engine/hosts/node-link';
import type { SshTarget } from '../../src-main/engine/hosts/ssh';
import { COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * A room node over real OpenSSH (issue 42, Deliver 2 and the core of 4): `ssh devbox commonroom node --stdio`
 * speaks the room's contract one JSON line at a time; a shell opened there keeps running when the SSH
 * connection is killed, and a new connection finds the same node, the same shell and all of its output.
 */
const unavailable = sshHostsUnavailable();
let hosts: SshHosts;
let sshDir: string;
const key = `t${randomBytes(4).toString('hex')}`;

/** One connection to the node: requests by id, answers and events as they come. */
class NodeLink {
  private buffered = '';
  private nextId = 1;
  private readonly waiting = new Map<number, (v: { result?: unknown; error?: { code: string; message: string } }) => void>();
  readonly events: { kind: string }[] = [];
  hello: Promise<{ protocol: number; version: string; room: string; pid: number }>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    let resolveHello: (h: { protocol: number; version: string; room: string; pid: number }) => void = () => {};
    this.hello = new Promise((r) => (resolveHello = r));
    child.stdout.on('data', (b: Buffer) => {
      this.buffered += b.toString();
      for (let i = this.buffered.indexOf('\n'); i !== -1; i = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, i);
        this.buffered = this.buffered.slice(i + 1);
        const msg = JSON.parse(line) as { hello?: never; id?: number; event?: { kind: string } };
        if (msg.hello) resolveHello(msg.hello);
        else if (msg.event) this.events.push(msg.event);
        else if (typeof msg.id === 'number') this.waiting.get(msg.id)?.(msg as never);
      }
    });
  }

  async call<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<{ result?: unknown; error?: { code: string; message: string } }>((r) => this.waiting.set(id, r));
    this.child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    const a = await answer;
    if (a.error) throw new Error(`${a.error.code}: ${a.error.message}`);
    return a.result as T;
  }
}

function connect(): NodeLink {
  // the host's login shell finds commonroom (it is on devbox's login PATH only)
  const child = spawn('ssh', [...hosts.sshArgs('devbox'), `exec $SHELL -l -c 'exec commonroom node --stdio --for ${key}'`], { stdio: ['pipe', 'pipe', 'pipe'] });
  return new NodeLink(child);
}

describe.skipIf(unavailable !== null)(`a room node over SSH${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-node-'));
    hosts = await startSshHosts(sshDir, [{ alias: 'devbox', user: 'crhost-node', profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }]);
  }, 60_000);
  afterAll(async () => {
    if (!hosts) return;
    spawnSync('ssh', [...hosts.sshArgs('devbox'), `exec $SHELL -l -c 'commonroom node --stop --for ${key}'`], { stdio: 'ignore', timeout: 20_000 });
    spawnSync('ssh', [...hosts.sshArgs('devbox'), `rm -rf ~/.local/share/commonroom/nodes/${key}.*`], { stdio: 'ignore', timeout: 20_000 });
    await hosts.stop();
    spawnSync('pkill', ['-u', 'crhost-node']);
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('serves the contract over ssh stdio, and its shell outlives a killed connection with nothing lost', async () => {
    const first = connect();
    const hello = await first.hello;
    expect(hello.protocol).toBe(LINE_PROTOCOL);
    expect(hello.version).toBe('0.1.0');
    await first.call('subscribe', {});
    const { shell } = await first.call<{ shell: { id: string; cwd: string } }>('shell_open', { name: 'remote work', cols: 100, rows: 30 });
    // a shell opened on a node starts in the account's home
    expect(shell.cwd).toBe('/home/crhost-node');
    const ran = await first.call<{ output: string }>('shell_io', { shellId: shell.id, text: 'echo "on $(whoami) $((6*7))"\n', wait: { until: 'match', pattern: 'on crhost-node 42', timeoutMs: 10_000 } });
    expect(ran.output).toContain('on crhost-node 42');
    // work that goes on while nobody is connected
    await first.call('shell_io', { shellId: shell.id, text: 'for i in 1 2 3 4 5 6; do echo "tick-$i"; sleep 0.5; done; echo all-ticks-done\n' });
    await expect.poll(() => first.events.some((e) => e.kind === 'shell.opened' || e.kind.startsWith('shell.'))).toBe(true);

    // the connection dies mid-run (the laptop slept, the network went): the node and its shell go on
    first.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));

    const second = connect();
    const again = await second.hello;
    expect(again.pid).toBe(hello.pid); // the same node, not a new one
    expect(again.room).toBe(hello.room);
    const listed = await second.call<{ shells: { id: string; alive: boolean }[] }>('shell_list', {});
    expect(listed.shells.find((s) => s.id === shell.id)?.alive).toBe(true);
    const read = await second.call<{ output: string }>('shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '^all-ticks-done', timeoutMs: 15_000 } });
    const tail = await second.call<{ output: string }>('shell_io', { shellId: shell.id, cursor: 'start' });
    for (let i = 1; i <= 6; i++) expect(tail.output).toContain(`tick-${i}`);
    expect(read.output + tail.output).toContain('all-ticks-done');

    // a method the node refuses says why, as every door does
    await expect(second.call('shell_io', { shellId: 'no-such-shell' })).rejects.toThrow(/NOT_FOUND|INVALID_INPUT/);
    second.child.stdin.end();
    await new Promise((r) => second.child.once('close', r));
  }, 90_000);

  it("the room's link moves to the node's socket forwarded by its ControlMaster: no relay stays, the local end is 0600 in a 0700 folder, and a killed master is got over", async () => {
    const target: SshTarget = { alias: 'devbox', config: { path: hosts.configFile, explicit: true }, controlDir: path.join(sshDir, 'cm') };
    const relays = () => spawnSync('pgrep', ['-u', 'crhost-node', '-f', `node --stdio --for ${key}`]).stdout.toString().trim();
    const settled = async (check: () => boolean) => {
      for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 100));
    };
    const link = new RoomLink(target, key, () => new Date().toISOString());
    try {
      const { shell } = await link.call<{ shell: { id: string } }>('shell_open', { name: 'forwarded', cols: 80, rows: 24 });
      expect(link.state.state).toBe('connected');
      // the relay that started (or found) the node ended once the forward took over; the node and its shell go on
      await settled(() => relays() === '');
      expect(relays()).toBe('');
      const local = localNodeSocket(target, key);
      expect(fs.statSync(local).isSocket()).toBe(true);
      expect(fs.statSync(local).mode & 0o777).toBe(0o600);
      expect(fs.statSync(target.controlDir).mode & 0o777).toBe(0o700);
      // ssh -O exit: the forward goes with the master; the next call connects again (the relay makes a master) and
      // finds the same node and shell, through a forward again
      spawnSync('ssh', ['-F', hosts.configFile, '-o', `ControlPath=${path.join(target.controlDir, '%C')}`, '-O', 'exit', 'devbox'], { stdio: 'ignore' });
      await settled(() => link.state.state === 'unreachable');
      expect(link.state.state).toBe('unreachable');
      const { shells } = await link.call<{ shells: { id: string; alive: boolean }[] }>('shell_list', {});
      expect(shells.find((x) => x.id === shell.id)?.alive).toBe(true);
      await settled(() => relays() === '');
      expect(relays()).toBe('');
      await link.call('shell_close', { shellId: shell.id });
    } finally {
      link.close();
    }
  }, 60_000);

  it("answers a placing room's stage_log: a stage's log records as its file holds them, whole, from any offset, up to a MiB a read", async () => {
    const link = connect();
    await link.hello;
    const lines = 300_000;
    const { graphId } = await link.call<{ graphId: string }>('stage_place', { name: `room-stage ${randomBytes(20).toString('hex')}`, spec: { command: `seq 1 ${lines}` } });
    type Slice = { stage: { state: string; exitCode: number | null }; text: string; next: number; more: boolean };
    let offset = 0;
    let log = '';
    let last: Slice;
    for (;;) {
      last = await link.call<Slice>('stage_log', { graphId, offset, waitMs: 10_000 });
      // whole lines, exactly as long as the offsets they span
      expect(last.next).toBe(offset + Buffer.byteLength(last.text));
      expect(last.text === '' || last.text.endsWith('\n')).toBe(true);
      log += last.text;
      offset = last.next;
      if (last.stage.state !== 'running' && last.stage.state !== 'pending' && last.stage.state !== 'queued' && !last.more) break;
    }
    expect(last.stage).toMatchObject({ state: 'completed', exitCode: 0 });
    const records = log.trimEnd().split('\n').map((line) => JSON.parse(line) as { q: number; s: string; d: string });
    expect(records.filter((r) => r.s === 'o').map((r) => r.d).join('')).toBe(`${Array.from({ length: lines }, (_, i) => i + 1).join('\n')}\n`);
    expect(records.every((r, i) => i === 0 || r.q === records[i - 1]!.q + 1)).toBe(true);
    // read again from the start once it ended: a MiB of whole records at most, then the rest from where it stopped
    const first = await link.call<Slice>('stage_log', { graphId, offset: 0 });
    expect(first.more).toBe(true);
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(1024 * 1024);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(1024 * 1024 - 64 * 1024);
    expect(log.startsWith(first.text)).toBe(true);
    // what it refuses says why
    await expect(link.call('stage_log', { graphId, offset: -1 })).rejects.toThrow(/INVALID_INPUT: stage_log: offset/);
    const other = `${graphId.slice(0, -1)}${graphId.endsWith('a') ? 'b' : 'a'}`;
    await expect(link.call('stage_log', { graphId: other, offset: 0 })).rejects.toThrow(/NOT_FOUND/);
    link.child.stdin.end();
    await new Promise((r) => link.child.once('close', r));
  }, 60_000);
});
