// A host to benchmark against: a private sshd (Debian's openssh-server) on 127.0.0.1 with its own keys, one
// account standing in for the other machine (the repository's `commonroom` on its login PATH, as `npm i -g`
// would put it), and an SSH config naming it by alias. The same shape the hosts tests use
// (test/helpers/ssh-hosts.ts), kept small: one account, no restarts. Needs root (sshd's privilege separation,
// useradd); `sshRigUnavailable()` says why not.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO } from './room.js';

const SSHD = '/usr/sbin/sshd';

export function sshRigUnavailable() {
  if (process.platform !== 'linux') return 'runs on Linux only';
  if (process.getuid?.() !== 0) return 'needs root (a private sshd and a test account)';
  if (!fs.existsSync(SSHD)) return 'openssh-server is not installed (apt-get install -y openssh-server)';
  if (spawnSync('ssh', ['-V']).error) return 'the OpenSSH client is not installed';
  // the host's account runs the checkout's bin/commonroom.js as itself: every folder above it must let it in
  for (let d = REPO; ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return `the checkout is inside ${d}, which other users cannot enter (chmod o+x it, or clone elsewhere)`;
    if (path.dirname(d) === d) return null;
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function ensureAccount(user) {
  if (spawnSync('id', ['-u', user]).status !== 0) execFileSync('useradd', ['--create-home', '--shell', '/bin/bash', user], { stdio: 'pipe' });
  execFileSync('usermod', ['--password', '*', user], { stdio: 'pipe' }); // not locked: sshd refuses "!" accounts
  const home = execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).split(':')[5];
  const bin = path.join(home, 'tools', 'bin');
  fs.rmSync(path.join(home, 'tools'), { recursive: true, force: true });
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(path.join(REPO, 'bin', 'commonroom.js'), path.join(bin, 'commonroom'));
  fs.writeFileSync(path.join(home, '.profile'), 'export PATH="$HOME/tools/bin:$PATH"\n');
  execFileSync('chown', ['-R', `${user}:`, home]);
}

/** Starts sshd with one account reached as `alias`; resolves with the SSH config file, ssh's arguments and stop(). */
export async function startSshRig(dir, alias = 'benchbox', user = process.env.BENCH_SSH_USER || 'crhost-bench') {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  const hostKey = path.join(dir, 'host_ed25519');
  const clientKey = path.join(dir, 'id_ed25519');
  for (const key of [hostKey, clientKey]) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  ensureAccount(user);
  const keys = path.join(dir, 'authorized');
  fs.mkdirSync(keys);
  fs.copyFileSync(`${clientKey}.pub`, path.join(keys, user));
  const port = await freePort();
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const sshdConfig = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    sshdConfig,
    [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${hostKey}`, `PidFile ${path.join(dir, 'sshd.pid')}`, `AuthorizedKeysFile ${keys}/%u`, 'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'PermitRootLogin no', `AllowUsers ${user}`, 'PrintMotd no', 'MaxSessions 64', 'LogLevel ERROR', ''].join('\n'),
  );
  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${port} ${fs.readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
  const configFile = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    configFile,
    [`Host ${alias}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${user}`, `  IdentityFile ${clientKey}`, '  IdentitiesOnly yes', `  UserKnownHostsFile ${knownHosts}`, '  StrictHostKeyChecking yes', '  LogLevel ERROR', ''].join('\n'),
  );
  const sshd = spawn(SSHD, ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  sshd.stderr.on('data', (b) => (stderr += b));
  for (const deadline = Date.now() + 10_000; ; await sleep(50)) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s.destroy() || true));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (sshd.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${stderr}`);
  }
  return {
    alias,
    configFile,
    sshArgs: ['-F', configFile, '-o', 'BatchMode=yes'],
    stop: async () => {
      if (sshd.exitCode !== null || sshd.signalCode !== null) return;
      const gone = new Promise((r) => sshd.once('exit', r));
      sshd.kill('SIGTERM');
      await gone;
    },
  };
}
