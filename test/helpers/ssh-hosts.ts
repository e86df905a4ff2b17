import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './env';
import type { TestRunner } from './runner';

/**
 * Real OpenSSH for the hosts tests: a private sshd (Debian's openssh-server) on 127.0.0.1 with its own host
 * key and config, and test accounts standing in for the person's other machines, each with its own login
 * profile (so its login PATH differs from what a plain `ssh host cmd` gets). The person's side is an SSH
 * config file of the test's own (COMMONROOM_SSH_CONFIG): aliases, the client key, a known_hosts holding the
 * sshd's key. Needs root (sshd's privilege separation, and making the accounts); `sshHostsUnavailable()` says
 * why not, for the skip line.
 */

const SSHD = '/usr/sbin/sshd';

export function sshHostsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'real-SSH host tests run on Linux only';
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'real-SSH host tests need root (to run a private sshd and make its test accounts); CI runs them as root';
  if (!fs.existsSync(SSHD)) return 'openssh-server is not installed (apt-get install -y openssh-server; .ci/run does)';
  if (spawnSync('ssh', ['-V']).error) return 'the OpenSSH client (ssh) is not installed';
  if (spawnSync('useradd', ['--help']).error) return 'useradd is not available to make the test accounts';
  const closed = privateFolderAbove(REPO);
  if (closed) return `the checkout is inside ${closed}, which other users cannot enter: the stand-in hosts' accounts run its bin/commonroom.js as themselves (chmod o+x ${closed}, or clone it elsewhere)`;
  return null;
}

/** The first folder from `dir` up that other users cannot enter (no o+x), or null when every one is open. */
export function privateFolderAbove(dir: string): string | null {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** One stand-in machine: an account on the private sshd, reached by `alias`. */
export interface HostAccount {
  alias: string;
  user: string;
  /** Lines for its ~/.profile (read by its login shell only: ~/.bashrc is left as it is). */
  profile: string[];
  /** Programs put in ~/tools/bin, by name → target (symlinks): on its PATH only through `profile`. */
  tools?: Record<string, string>;
}

export interface SshHosts {
  /** The person's SSH config file (for COMMONROOM_SSH_CONFIG). */
  configFile: string;
  port: number;
  /** Where each host runs: its own network namespace at its own address, or this machine's loopback (and why). */
  placement: string;
  /** ssh's arguments to reach `alias` as the person would (for tests that compare with plain ssh). */
  sshArgs(alias: string): string[];
  /** Stops listening (connections already open stay, as sshd's do). */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same keys. */
  restart(): Promise<void>;
  /** Stops, and removes the hosts' network namespaces (if they have them). */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function ensureAccount(account: HostAccount): string {
  // another test file may be adding its own account at the same moment: useradd then cannot lock /etc/passwd
  for (let attempt = 0; spawnSync('id', ['-u', account.user]).status !== 0; attempt++) {
    const made = spawnSync('useradd', ['--create-home', '--shell', '/bin/bash', account.user], { encoding: 'utf8' });
    if (made.status === 0) break;
    if (attempt >= 10) throw new Error(`useradd ${account.user} failed: ${made.stderr}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  // no password, but not locked: with UsePAM off, sshd refuses a locked account ("!") even with a good key
  execFileSync('usermod', ['--password', '*', account.user], { stdio: 'pipe' });
  const home = execFileSync('getent', ['passwd', account.user], { encoding: 'utf8' }).split(':')[5] as string;
  const bin = path.join(home, 'tools', 'bin');
  fs.rmSync(path.join(home, 'tools'), { recursive: true, force: true });
  fs.mkdirSync(bin, { recursive: true });
  for (const [name, target] of Object.entries(account.tools ?? {})) fs.symlinkSync(target, path.join(bin, name));
  fs.writeFileSync(path.join(home, '.profile'), `${account.profile.join('\n')}\n`);
  // a non-login shell (ssh host cmd) reads ~/.bashrc: keep it free of the profile's PATH
  fs.writeFileSync(path.join(home, '.bashrc'), '# test account: nothing here\n');
  execFileSync('chown', ['-R', `${account.user}:`, home]);
  return home;
}

/** Runs sshd in the foreground on `address`:`port` (inside network namespace `netns`, if given); resolves once it accepts a connection. */
async function launchSshd(config: string, port: number, address = '127.0.0.1', netns?: string): Promise<ChildProcess> {
  const argv = [SSHD, '-D', '-e', '-f', config];
  const child: ChildProcess = netns ? spawn('ip', ['netns', 'exec', netns, ...argv], { stdio: ['ignore', 'ignore', 'pipe'] }) : spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, address, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return child;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Why the hosts cannot each have a network namespace of their own here, or null when they can. */
export function netnsUnavailable(): string | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'network namespaces need root';
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (listed.error || listed.status !== 0) return `\`ip netns\` does not work here (${listed.error?.message ?? listed.stderr.trim()})`;
  return null;
}

/** A host's own network: a namespace joined to this machine by a veth pair, with an address on each end. */
interface HostNet {
  netns: string;
  outside: string;
  inside: string;
}

const NETNS_PREFIX = 'crhost-';

/** Removes the namespaces of earlier runs whose process is gone (a run killed before its exit hook). */
function removeStaleNetns(): void {
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  for (const name of listed.split('\n').map((l) => l.split(' ')[0] ?? '')) {
    const pid = Number(/^crhost-(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      spawnSync('ip', ['netns', 'delete', name]);
    }
  }
}

/** Makes a namespace per host, each a /30 of 10.213.X.0/24 (X free on this machine), ended when this process exits. */
function makeHostNets(count: number): HostNet[] {
  removeStaleNetns();
  const used = spawnSync('ip', ['-4', '-o', 'addr', 'show'], { encoding: 'utf8' }).stdout ?? '';
  let x = process.pid % 256;
  while (used.includes(`10.213.${x}.`)) x = (x + 1) % 256;
  const nets: HostNet[] = [];
  const run = (args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  for (let i = 0; i < count; i++) {
    const net: HostNet = { netns: `${NETNS_PREFIX}${process.pid}-${i}`, outside: `10.213.${x}.${i * 4 + 1}`, inside: `10.213.${x}.${i * 4 + 2}` };
    const veth = `crv${process.pid % 100000}${String.fromCharCode(97 + i)}`;
    run(['netns', 'add', net.netns]);
    nets.push(net);
    run(['link', 'add', `${veth}o`, 'type', 'veth', 'peer', 'name', `${veth}i`]);
    run(['link', 'set', `${veth}i`, 'netns', net.netns]);
    run(['addr', 'add', `${net.outside}/30`, 'dev', `${veth}o`]);
    run(['link', 'set', `${veth}o`, 'up']);
    run(['netns', 'exec', net.netns, 'ip', 'addr', 'add', `${net.inside}/30`, 'dev', `${veth}i`]);
    run(['netns', 'exec', net.netns, 'ip', 'link', 'set', `${veth}i`, 'up']);
    run(['netns', 'exec', net.netns, 'ip', 'link', 'set', 'lo', 'up']);
  }
  return nets;
}

/**
 * Starts the private sshd with these accounts, and writes the person's SSH config naming each by alias. With
 * `netns` each account is a host of its own: its own network namespace (made here; root and `ip netns`), its
 * own sshd on its own address, and from there this machine's loopback (the room's endpoint) is out of reach,
 * as it is from a real other machine. Without it, or where namespaces cannot be made, every host is an account
 * on one sshd on 127.0.0.1 (`placement` says which, and why).
 */
export async function startSshHosts(dir: string, accounts: HostAccount[], extraConfig: string[] = [], options: { netns?: boolean } = {}): Promise<SshHosts> {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755); // the test accounts' sshd reads their authorized keys in it as them
  const hostKey = path.join(dir, 'host_ed25519');
  const clientKey = path.join(dir, 'id_ed25519');
  for (const key of [hostKey, clientKey]) {
    fs.rmSync(key, { force: true });
    fs.rmSync(`${key}.pub`, { force: true });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  }
  const keysDir = path.join(dir, 'authorized');
  fs.mkdirSync(keysDir, { recursive: true });
  for (const a of accounts) {
    ensureAccount(a);
    fs.writeFileSync(path.join(keysDir, a.user), fs.readFileSync(`${clientKey}.pub`));
  }
  const noNetns = options.netns ? netnsUnavailable() : 'not asked for';
  const nets = noNetns === null ? makeHostNets(accounts.length) : null;
  // in a namespace of its own a host's sshd has the port to itself
  const port = nets ? 22 : await freePort();
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // privilege separation's empty folder
  const sshdConfigOf = (name: string, address: string, users: string[]) => {
    const file = path.join(dir, `sshd_config${name}`);
    fs.writeFileSync(
      file,
      [
        `Port ${port}`,
        `ListenAddress ${address}`,
        `HostKey ${hostKey}`,
        `PidFile ${path.join(dir, `sshd${name}.pid`)}`,
        `AuthorizedKeysFile ${keysDir}/%u`,
        'StrictModes no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitRootLogin no',
        `AllowUsers ${users.join(' ')}`,
        'PrintMotd no',
        'MaxSessions 64',
        'MaxStartups 64',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    return file;
  };
  /** Each sshd to run: its config, the address it listens on, its namespace. */
  const daemons = nets
    ? accounts.map((a, i) => ({ config: sshdConfigOf(`-${i}`, (nets[i] as HostNet).inside, [a.user]), address: (nets[i] as HostNet).inside, netns: (nets[i] as HostNet).netns }))
    : [{ config: sshdConfigOf('', '127.0.0.1', accounts.map((a) => a.user)), address: '127.0.0.1', netns: undefined }];
  const addressOf = (i: number) => (nets ? (nets[i] as HostNet).inside : '127.0.0.1');
  const hostKeyLine = fs.readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, daemons.map((d) => `${port === 22 ? d.address : `[${d.address}]:${port}`} ${hostKeyLine}\n`).join(''));
  const configFile = path.join(dir, 'ssh_config');
  const hostBlock = (alias: string, user: string, address: string) => [
    `Host ${alias}`,
    `  HostName ${address}`,
    `  Port ${port}`,
    `  User ${user}`,
    `  IdentityFile ${clientKey}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${knownHosts}`,
    '  StrictHostKeyChecking yes',
    '  LogLevel ERROR',
  ];
  fs.writeFileSync(configFile, [...accounts.flatMap((a, i) => hostBlock(a.alias, a.user, addressOf(i))), ...extraConfig, ''].join('\n'));
  const launchAll = () => Promise.all(daemons.map((d) => launchSshd(d.config, port, d.address, d.netns)));
  let children = await launchAll();
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }),
    );
  };
  return {
    configFile,
    port,
    placement: nets ? `each host in a network namespace of its own (${nets.map((n) => n.inside).join(', ')})` : `every host an account on one sshd on 127.0.0.1 (network namespaces: ${noNetns})`,
    sshArgs: (alias) => ['-F', configFile, '-o', 'BatchMode=yes', alias],
    stop,
    restart: async () => {
      children = await launchAll();
    },
    dispose: async () => {
      await stop();
      // deleting a namespace takes its end of the veth pair, and with it this machine's end (a run killed before
      // this leaves them to the next start's removeStaleNetns)
      for (const n of nets ?? []) spawnSync('ip', ['netns', 'delete', n.netns]);
    },
  };
}

/** The repository's `commonroom` program, as a host would have it on its PATH after `npm install -g`. */
export const COMMONROOM_BIN = path.join(REPO, 'bin', 'commonroom.js');
export const TMP = os.tmpdir();

/**
 * `ssh -O exit` to each alias's ControlMaster in a room's config folder (ControlPath `<configDir>/ssh/%C`, the
 * room's links' own connection): the connection goes at once, not when its ControlPersist runs out.
 */
export function closeMasters(hosts: SshHosts, configDir: string, aliases: readonly string[]): void {
  for (const alias of aliases) spawnSync('ssh', ['-F', hosts.configFile, '-o', `ControlPath=${path.join(configDir, 'ssh', '%C')}`, '-O', 'exit', alias], { stdio: 'ignore' });
}

/**
 * The end of a hosts test, in this order: the room's ControlMasters closed (with `configDir`: closeMasters), each
 * alias's room node stopped (with `nodeKey`, the room id it serves: `commonroom node --stop --for` on the host's
 * login shell), the private sshd stopped (`dispose`: its network namespaces removed as well), and whatever the
 * host accounts `users` still run killed (the nodes and anything left of their shells and stages).
 */
export async function closeHosts(hosts: SshHosts, options: { aliases: readonly string[]; users: readonly string[]; configDir?: string; nodeKey?: string; dispose?: boolean }): Promise<void> {
  if (options.configDir !== undefined) closeMasters(hosts, options.configDir, options.aliases);
  if (options.nodeKey !== undefined) {
    for (const alias of options.aliases) spawnSync('ssh', [...hosts.sshArgs(alias), `exec $SHELL -l -c 'commonroom node --stop --for ${options.nodeKey}'`], { stdio: 'ignore', timeout: 20_000 });
  }
  await (options.dispose ? hosts.dispose() : hosts.stop());
  for (const user of options.users) spawnSync('pkill', ['-u', user]);
}

/**
 * The end of a test whose room ran work on one host `alias` (account `user`): the room's ControlMaster closed and
 * the room closed, COMMONROOM_SSH_CONFIG put back to `savedConfig`, then closeHosts (the host's node for that room
 * stopped, the sshd and its namespaces gone, the account's processes killed). Either may be missing (a set-up that failed).
 */
export async function closeRoomAndHost(hosts: SshHosts | undefined, runner: TestRunner | undefined, alias: string, user: string, savedConfig: string | undefined): Promise<void> {
  if (runner) {
    if (hosts) closeMasters(hosts, runner.home.paths.configDir, [alias]);
    await runner.close();
  }
  if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
  else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
  if (hosts) await closeHosts(hosts, { aliases: [alias], users: [user], ...(runner ? { nodeKey: runner.running.engine.room.id } : {}), dispose: true });
}
