// The remote benchmarks' set-up (bench/benchmarks/remote.js, bench/investigations/remote-*.js): the private sshd
// (ssh-rig.js) in a folder of its own, a room that has its host, an agent's MCP client of the room, and plain
// ssh's best case beside it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeAll, connect } from './clients.js';
import { callApi, makeHome, startRoom } from './room.js';
import { startSshRig } from './ssh-rig.js';

/** Runs `ssh ARGS` to its end: how long it took and how many bytes it printed. */
export function ssh(args) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn('ssh', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (b) => (bytes += b.length));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - t, bytes }) : reject(new Error(`ssh ${args.at(-1)}: exit ${code} ${stderr}`))));
  });
}

/**
 * Starts it all in a new folder named from `prefix`. `prepare(dir)`, when given, runs before the room starts and
 * may return the room's Node arguments (a profile). `master`: ssh's arguments for a command on a ControlMaster,
 * opened here once (every command a new channel on it: plain ssh's best case). `close(beforeSshdStops)` ends it
 * all in order, naming each step to `step`, and removes the folder.
 */
export async function startRemoteRoom(prefix, { prepare, step = () => {} } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755); // the host account's sshd reads its authorized key below it
  const rig = await startSshRig(path.join(dir, 'ssh'));
  const home = makeHome('remote');
  home.env.COMMONROOM_SSH_CONFIG = rig.configFile;
  const nodeArgs = await prepare?.(dir);
  if (nodeArgs) home.nodeArgs = nodeArgs;
  const room = await startRoom(home);
  const client = await connect('2026', room.url, room.token);
  const master = [...rig.sshArgs, '-o', 'ControlMaster=auto', '-o', `ControlPath=${path.join(dir, 'cm-%C')}`, '-o', 'ControlPersist=120', rig.alias];
  async function close(beforeSshdStops = async () => {}) {
    try {
      step('clients');
      await closeAll([client]);
      step('room');
      await room.stop();
      step('master');
      await ssh([...master.slice(0, -1), '-O', 'exit', rig.alias]).catch(() => {});
      step('rig');
      await beforeSshdStops();
      await rig.stop();
      home.cleanup();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  try {
    await callApi(room, room.token, 'host_add', { alias: rig.alias });
    await ssh([...master, 'true']);
  } catch (error) {
    await close();
    throw error;
  }
  return { dir, rig, room, client, master, close };
}
