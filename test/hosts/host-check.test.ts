import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, Room } from '../../src-main/engine/index';
import { makeHome, BIN_CE, type TestHome } from '../helpers/env';
import { closeHosts, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * `ce host add|list|check|remove` against real OpenSSH: a private sshd on 127.0.0.1 and two stand-in machines
 * (accounts with their own login profiles). "devbox" has Node, git, Commonroom and an agent CLI, the last two
 * only on its LOGIN PATH (its ~/.profile); "gpubox" has Node and git only. "downbox" names a port nobody
 * listens on; "strangebox" a host whose key the person never accepted.
 */
const unavailable = sshHostsUnavailable();
const CLAUDE = path.resolve(import.meta.dirname, '../clients/node_modules/.bin/claude');

let home: TestHome;
let hosts: SshHosts;
let env: NodeJS.ProcessEnv;
let sshDir: string;

function ce(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN_CE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe.skipIf(unavailable !== null)(`ce host, over real OpenSSH${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    home = makeHome();
    const tools: Record<string, string> = { commonroom: COMMONROOM_BIN };
    if (fs.existsSync(CLAUDE)) tools.claude = fs.realpathSync(CLAUDE);
    // beside the home, not in it (mkdtemp's 0700 would keep the test accounts' sshd from their keys)
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-'));
    hosts = await startSshHosts(
      sshDir,
      [
        { alias: 'devbox', user: 'crhost-dev', profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools },
        { alias: 'gpubox', user: 'crhost-gpu', profile: ['# nothing added'] },
      ],
      [
        'Host downbox',
        '  HostName 127.0.0.1',
        '  Port 9',
        '  ConnectTimeout 3',
        'Host strangebox',
        '  HostName 127.0.0.1',
        '  User crhost-strange', // not devbox's user: %C would share devbox's connection, key check and all
        '  UserKnownHostsFile /dev/null',
        '  StrictHostKeyChecking yes',
        'Host *.wild',
        '  User nobody',
      ],
    );
    env = { ...home.env, COMMONROOM_SSH_CONFIG: hosts.configFile };
    // strangebox reaches the same sshd: its port is that of the others
    fs.appendFileSync(hosts.configFile, `Host strangebox\n  Port ${hosts.port}\n`);
    const init = await ce(['init']);
    expect(init.status, init.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    if (!hosts) return;
    await closeHosts(hosts, { configDir: home.paths.configDir, aliases: ['devbox', 'gpubox'], users: ['crhost-dev', 'crhost-gpu'] });
    home.cleanup();
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('lists the aliases of the SSH configuration, refuses one it does not name, and adds the person\'s hosts', async () => {
    const first = await ce(['host', 'list']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('no hosts yet');
    expect(first.stdout).toContain(`in ${hosts.configFile}, not added: devbox, gpubox, downbox, strangebox`);
    expect(first.stdout).not.toContain('wild'); // a pattern is not a host

    const typo = await ce(['host', 'add', 'devbx']);
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain(`"devbx" is not a Host entry of ${hosts.configFile}`);
    const option = await ce(['host', 'add', '--', '-oProxyCommand=touch /tmp/x']);
    expect(option.status).not.toBe(0);

    for (const alias of ['devbox', 'gpubox', 'downbox', 'strangebox']) expect((await ce(['host', 'add', alias])).status).toBe(0);
    const json = JSON.parse((await ce(['host', 'list', '--json'])).stdout) as { hosts: { alias: string; agents: boolean; configured: boolean }[]; available: string[] };
    expect(json.hosts.map((h) => h.alias)).toEqual(['devbox', 'downbox', 'gpubox', 'strangebox']);
    expect(json.hosts.every((h) => h.agents && h.configured)).toBe(true);
    expect(json.available).toEqual([]);
  });

  it('check finds what the host\'s LOGIN PATH has (a plain "ssh host cmd" misses it) and says the host is ready', async () => {
    const plain = spawnSync('ssh', [...hosts.sshArgs('devbox'), 'command -v commonroom || echo none'], { encoding: 'utf8' });
    expect(plain.stdout.trim()).toBe('none'); // not on the non-login PATH: only the profile adds it

    const out = await ce(['host', 'check', 'devbox']);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^devbox: ready — Linux x86_64|^devbox: ready — Linux aarch64/);
    expect(out.stdout).toMatch(/commonroom\s+\/home\/crhost-dev\/tools\/bin\/commonroom\s+0\.1\.0/);
    expect(out.stdout).toMatch(/node\s+\/\S+\s+v\d+/);
    expect(out.stdout).toMatch(/git\s+\/\S+\s+git version/);
    if (fs.existsSync(CLAUDE)) expect(out.stdout).toMatch(/claude-code\s+\/home\/crhost-dev\/tools\/bin\/claude\s+\d+\.\d+\.\d+/);
    expect(out.stdout).toContain('login PATH: /home/crhost-dev/tools/bin:');

    // one shared connection, its socket in the config folder (which agents' sandboxes hide)
    const controlDir = path.join(home.paths.configDir, 'ssh');
    expect(fs.statSync(controlDir).mode & 0o777).toBe(0o700);
    const master = spawnSync('ssh', ['-F', hosts.configFile, '-o', `ControlPath=${path.join(controlDir, '%C')}`, '-O', 'check', 'devbox'], { encoding: 'utf8' });
    expect(master.stderr).toContain('Master running');

    const listed = JSON.parse((await ce(['host', 'list', '--json'])).stdout) as { hosts: { alias: string; lastCheck: { ready: boolean } | null }[] };
    expect(listed.hosts.find((h) => h.alias === 'devbox')?.lastCheck?.ready).toBe(true);
  }, 60_000);

  it('check says exactly what a host lacks and how to install it, and exits 1', async () => {
    const out = await ce(['host', 'check', 'gpubox']);
    expect(out.status).toBe(1);
    expect(out.stdout).toContain('gpubox: reachable, not ready');
    expect(out.stdout).toMatch(/commonroom\s+not found/);
    expect(out.stdout).toContain('Commonroom is not installed: run "npm install -g commonroom@0.1.0" on the host');
    expect(out.stdout).toContain('no agent CLI is on the login PATH');
    expect(out.stdout).toContain('npm install -g @anthropic-ai/claude-code');
  }, 60_000);

  it('a host that cannot be reached, and one whose key was never accepted, each say why and what to do', async () => {
    const down = await ce(['host', 'check', 'downbox']);
    expect(down.status).toBe(1);
    expect(down.stdout).toContain('downbox: not reachable');
    expect(down.stdout).toMatch(/downbox could not be reached \(.*Connection refused.*\): check that it is up/);

    const strange = await ce(['host', 'check', 'strangebox']);
    expect(strange.status).toBe(1);
    expect(strange.stdout).toContain('strangebox: its host key is not known or has changed');
    expect(strange.stdout).toContain('connect once with "ssh strangebox"');
  }, 60_000);

  it('only the person adds or checks a host; an agent with operate may list and remove', async () => {
    const engine = await Engine.start(Room.open({ paths: home.paths, mustExist: true }));
    try {
      const operator = engine.operator();
      await engine.call(operator, 'participant_add', { name: 'ops-agent', capabilities: ['read', 'write', 'operate'] });
      const agent = engine.participantAs(operator, 'ops-agent');
      await expect(engine.call(agent, 'host_add', { alias: 'devbox' })).rejects.toThrow(/only the person at the desktop adds a host/);
      await expect(engine.call(agent, 'host_check', { alias: 'devbox' })).rejects.toThrow(/only the person at the desktop checks a host/);
      expect((await engine.call(agent, 'host_list', {})).hosts.length).toBe(4);
      expect(await engine.call(agent, 'host_remove', { alias: 'strangebox' })).toEqual({ removed: true });
    } finally {
      await engine.close();
    }
    const gone = await ce(['host', 'remove', 'strangebox']);
    expect(gone.stdout).toContain('strangebox was not a host of this room');
    const refused = await ce(['host', 'check', 'strangebox']);
    expect(refused.stderr).toContain('no host named "strangebox" in this room');
  });
});
