import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../src-main/engine/process/process-tree';
import { Room } from '../../src-main/engine/room/room';
import { makeHome, waitForPidFile, type TestHome } from '../helpers/env';
import { runCe, runCommonroom, startServe, stopServe } from '../helpers/serve';

const initBody = (version: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });

const initialize = (url: string, token: string, version = '2025-11-25') =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: initBody(version),
  });

describe('commonroom serve', () => {
  let home: TestHome;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => home.cleanup());

  it('starts, prints the endpoint and the token file, answers, and on SIGTERM exits 0 leaving no lock', async () => {
    const serve = await startServe(home);
    expect(serve.output()).toMatch(/MCP endpoint:\s+http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(serve.output()).toContain('claude mcp add --transport http');
    const answer = await initialize(serve.mcpUrl, serve.token, '2025-06-18');
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"protocolVersion":"2025-06-18"');

    const ended = await stopServe(serve, 'SIGTERM');
    expect(ended).toEqual({ code: 0, signal: null });
    expect(serve.output()).toContain('lock released');
    // no lock behind: the room opens as writer at once
    Room.open({ paths: home.paths }).close();
  });

  it('exits 0 on SIGINT too', async () => {
    const serve = await startServe(home);
    expect(await stopServe(serve, 'SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('serves a given markdown room beside it', async () => {
    const md = path.join(home.root, 'project.md');
    const serve = await startServe(home, ['--room', md]);
    try {
      expect(serve.output()).toContain(md);
      expect(fs.existsSync(`${md}.commonroom.db`)).toBe(true);
    } finally {
      await stopServe(serve);
    }
  });

  it('says clearly when the port is taken, and releases the room', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = runCommonroom(home, ['serve', '--port', String(port)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr).toContain('--port 0');
      Room.open({ paths: home.paths }).close();
    } finally {
      blocker.close();
    }
  });

  it('refuses to listen on anything but loopback, before creating anything', () => {
    const r = runCommonroom(home, ['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('loopback only');
    // no room, no database, no operator token: the option was checked before the room was touched
    expect(fs.existsSync(home.paths.dataDir)).toBe(false);
    expect(fs.existsSync(home.paths.configDir)).toBe(false);
  });

  it('refuses unknown options and a bad port with usage errors', () => {
    expect(runCommonroom(home, ['serve', '--prot', '1']).stderr).toMatch(/unknown option --prot/);
    const bad = runCommonroom(home, ['serve', '--port', 'abc']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port must be a number/);
  });

  it('a second serve on the same room fails at once naming the first', async () => {
    const first = await startServe(home);
    try {
      const r = runCommonroom(home, ['serve', '--port', '0']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`pid ${first.proc.pid}`);
      // and where it serves: the endpoint to use instead
      expect(r.stderr).toContain(`its MCP endpoint is ${first.mcpUrl}`);
    } finally {
      await stopServe(first);
    }
  });
});

describe('ce participant', () => {
  let home: TestHome;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => home.cleanup());

  it('adds, lists and revokes through the running room process; the new token works at once and stops after revoke', async () => {
    const serve = await startServe(home);
    try {
      const added = runCe(home, ['participant', 'add', 'builder', '--can', 'read,write', '--json']);
      expect(added.status, added.stderr).toBe(0);
      const { token, participant } = JSON.parse(added.stdout) as { token: string; participant: { capabilities: string[] } };
      expect(participant.capabilities).toEqual(['read', 'write']);
      expect((await initialize(serve.mcpUrl, token)).status).toBe(200);

      const list = runCe(home, ['participant', 'list']);
      expect(list.stdout).toMatch(/operator\s+operator\s+read,write,approve,operate\s+active/);
      expect(list.stdout).toMatch(/builder\s+agent\s+read,write\s+active/);

      const revoked = runCe(home, ['participant', 'revoke', 'builder']);
      expect(revoked.stdout).toContain('revoked builder');
      expect((await initialize(serve.mcpUrl, token)).status).toBe(401);
      expect(runCe(home, ['participant', 'revoke', 'builder']).stdout).toContain('already revoked');
    } finally {
      await stopServe(serve);
    }
  });

  it('works without a running room process by opening the room itself', () => {
    expect(runCe(home, ['init']).status).toBe(0);
    const added = runCe(home, ['participant', 'add', 'solo', '--can', 'read']);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/token \(shown once, store it now\): cr_/);
    expect(runCe(home, ['participant', 'list']).stdout).toMatch(/solo\s+agent\s+read\s+active/);
    // and the room is free again afterwards
    Room.open({ paths: home.paths }).close();
  });

  it('refuses bad input with a clear message and writes nothing', () => {
    runCe(home, ['init']);
    runCe(home, ['participant', 'add', 'first', '--can', 'read']);
    const unknownCap = runCe(home, ['participant', 'add', 'x', '--can', 'read,fly']);
    expect(unknownCap.status).toBe(1);
    expect(unknownCap.stderr).toContain('unknown capability "fly"');
    const noCan = runCe(home, ['participant', 'add', 'x']);
    expect(noCan.status).toBe(2);
    expect(noCan.stderr).toContain('--can');
    const badName = runCe(home, ['participant', 'add', 'bad name!', '--can', 'read']);
    expect(badName.status).toBe(1);
    expect(badName.stderr).toContain('invalid arguments for participant_add');
    expect(runCe(home, ['participant', 'add', 'first', '--can', 'read']).stderr).toContain('already exists');
    expect(runCe(home, ['participant', 'revoke', 'operator']).stderr).toContain('cannot be revoked');
    const names = runCe(home, ['participant', 'list', '--json']);
    expect((JSON.parse(names.stdout) as { participants: { name: string }[] }).participants.map((p) => p.name)).toEqual(['operator', 'first']);
  });
});

describe('ce shells', () => {
  let home: TestHome;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => home.cleanup());

  it('lists the live shells of the running room process, and says clearly when none runs', async () => {
    expect(runCe(home, ['shells']).stderr).toContain('no room process is running');
    const serve = await startServe(home);
    try {
      const opened = await fetch(new URL('/api/shell_open', serve.mcpUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.token}` },
        body: JSON.stringify({ name: 'listed', shell: '/bin/sh' }),
      });
      expect(opened.status).toBe(200);
      const listed = runCe(home, ['shells']);
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/sh_[0-9a-f]{16}\s+listed\s+operator\s+pid \d+\s+alive/);
    } finally {
      await stopServe(serve);
    }
  });
});

describe('shells and the room process lifetime', () => {
  let home: TestHome;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => home.cleanup());

  async function shellWithNohupChild(serve: Awaited<ReturnType<typeof startServe>>): Promise<number> {
    const call = async (method: string, body: unknown) => {
      const r = await fetch(new URL(`/api/${method}`, serve.mcpUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.token}` },
        body: JSON.stringify(body),
      });
      return ((await r.json()) as { result: Record<string, unknown> }).result;
    };
    const opened = (await call('shell_open', { shell: '/bin/sh' })) as { shell: { id: string } };
    const pidFile = path.join(home.root, `nohup-${Date.now()}.pid`);
    await call('shell_io', {
      shellId: opened.shell.id,
      text: `nohup sh -c 'echo $$ > ${pidFile}; exec sleep 300' >/dev/null 2>&1 &\n`,
      wait: { until: 'idle', idleMs: 300 },
    });
    return waitForPidFile(pidFile, 2000);
  }

  it('SIGTERM ends live shells with their trees', async () => {
    const serve = await startServe(home);
    const orphan = await shellWithNohupChild(serve);
    expect(isAlive(orphan)).toBe(true);
    expect(await stopServe(serve, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(isAlive(orphan)).toBe(false);
  });

  it('after a SIGKILL, the next start ends what the dead runner’s shells left behind', async () => {
    const first = await startServe(home);
    const orphan = await shellWithNohupChild(first);
    await stopServe(first, 'SIGKILL');
    expect(isAlive(orphan)).toBe(true); // nohup survived the hangup
    const second = await startServe(home);
    try {
      expect(isAlive(orphan)).toBe(false);
    } finally {
      await stopServe(second);
    }
  });
});
