import { RoomError } from '../../common/errors';
import path from 'node:path';
import { childProcess } from '../platform/child-process';
import { ensureOwnDir } from '../core/fs-safe';
import type { SshConfigFile } from './ssh-config';

/**
 * How the room reaches a host: the person's own OpenSSH client, with the person's configuration, keys and agent,
 * and never a prompt (BatchMode: a host that wants a password or an unknown host key fails with what to do). One
 * connection per host is shared by every command (ControlMaster, its socket in the config folder, which agents'
 * sandboxes hide: the connection is the person's, never an agent's).
 */
export interface SshTarget {
  alias: string;
  config: SshConfigFile;
  /** The folder of the control sockets (0700, the room's own). */
  controlDir: string;
}

/**
 * Where control sockets go: `configDir/ssh`, hidden from every agent's sandbox with the tokens beside it. A
 * folder anywhere else (a temp folder) could be reached from a sandbox, so a config folder whose path is too
 * long for a socket name is refused with what to do rather than moved.
 */
export function controlDirFor(configDir: string): string {
  const dir = path.join(configDir, 'ssh');
  // a Unix socket path is at most 104 bytes on macOS (108 on Linux); %C is 40 hex digits
  if (Buffer.byteLength(dir) + 1 + 40 >= 104) {
    throw new RoomError('UNAVAILABLE', `the config folder's path (${configDir}) is too long for an SSH control socket in it: set COMMONROOM_CONFIG_DIR to a shorter folder (e.g. ~/.config/commonroom) and restart the room`);
  }
  return dir;
}

/** How long a shared connection stays open after its last command, in seconds. */
const CONTROL_PERSIST_S = 600;

/** ssh's arguments to run `remoteCommand` on the host (no terminal, no prompts, the shared connection). */
export function sshArgs(target: SshTarget, remoteCommand: string, connectTimeoutS = 10): string[] {
  return [
    ...(target.config.explicit ? ['-F', target.config.path] : []),
    '-T',
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${connectTimeoutS}`,
    '-o', 'ServerAliveInterval=15',
    '-o', 'ServerAliveCountMax=3',
    '-o', 'ControlMaster=auto',
    '-o', `ControlPath=${path.join(target.controlDir, '%C')}`,
    '-o', `ControlPersist=${CONTROL_PERSIST_S}`,
    '--',
    target.alias,
    remoteCommand,
  ];
}

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** ssh itself could not be started (not installed). */
  spawnError: string | null;
}

const MAX_CAPTURE = 256 * 1024;

/** The environment ssh runs with: the person's, without the room's own variables (tokens, agent names). */
export function sshEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('COMMONROOM_')) out[k] = v;
  return out;
}

/** Runs `remoteCommand` on the host with `stdin` as its input; never throws (the result says what happened). */
export function runSsh(target: SshTarget, remoteCommand: string, stdin: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<SshResult> {
  ensureOwnDir(target.controlDir);
  return new Promise((resolve) => {
    const child = childProcess().spawn('ssh', sshArgs(target, remoteCommand), { env: sshEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const finish = (result: SshResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    child.stdout.on('data', (b: Buffer) => {
      if (outBytes < MAX_CAPTURE) out.push(b);
      outBytes += b.length;
    });
    child.stderr.on('data', (b: Buffer) => {
      if (errBytes < MAX_CAPTURE) err.push(b);
      errBytes += b.length;
    });
    child.on('error', (e) => finish({ code: null, stdout: '', stderr: '', timedOut: false, spawnError: e.message }));
    child.on('close', (code) =>
      finish({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut, spawnError: null }));
    child.stdin.on('error', () => {}); // the host may close its input before reading it all (a failed connection)
    child.stdin.end(stdin);
  });
}

/** Why ssh could not connect, in the person's words, with what to do. */
export function sshFailure(alias: string, result: SshResult, configPath: string): string {
  if (result.spawnError) return `ssh could not be started (${result.spawnError}): install OpenSSH's client (ssh) on this machine`;
  if (result.timedOut) return `${alias} did not answer in time: check that it is up and reachable ("ssh ${alias}" from a terminal)`;
  const text = result.stderr.trim();
  const last = text.split('\n').filter((l) => l.trim() !== '').slice(-1)[0] ?? '';
  if (/Could not resolve hostname/i.test(text)) return `${alias}: its host name does not resolve (${last}): check its HostName in ${configPath}`;
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No .* host key is known/i.test(text)) {
    return `${alias}: its host key is not known or has changed (${last}): connect once with "ssh ${alias}" in a terminal to check and accept it`;
  }
  if (/Permission denied|Too many authentication failures/i.test(text)) {
    return `${alias}: the host refused your keys (${last}): load your key into ssh-agent or name it with IdentityFile in ${configPath}; the room never types a password`;
  }
  if (/Connection refused|Connection timed out|No route to host|Network is unreachable|Connection closed|port \d+:/i.test(text)) {
    return `${alias} could not be reached (${last}): check that it is up and its sshd listens ("ssh ${alias}" from a terminal)`;
  }
  return `${alias}: ssh failed${result.code !== null ? ` (exit ${result.code})` : ''}${last ? `: ${last}` : ''}: try "ssh ${alias}" from a terminal`;
}

/** `ssh -O …` to the host's ControlMaster (the link's own connection): its exit code and what it printed; never throws. */
export function sshControl(target: SshTarget, op: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [...(target.config.explicit ? ['-F', target.config.path] : []), '-o', 'BatchMode=yes', '-o', `ControlPath=${path.join(target.controlDir, '%C')}`, ...op, '--', target.alias];
  return new Promise((resolve) => {
    const child = childProcess().spawn('ssh', args, { env: sshEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
