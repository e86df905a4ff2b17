import { spawnSync } from 'node:child_process';
import { findOnPath } from './find-on-path';
import fs from 'node:fs';
import path from 'node:path';
import { ensureExactFile, ensureOwnDir } from '../fs-safe';
import { ROOM_FILE_NAME, ROOM_FOLDER_NAME, roomsFolder, roomStateDir, sandboxFolder } from '../room/room-paths';

/**
 * The OS sandbox an agent's shells and graph stages run in, so that no agent can read the room's secrets with
 * the person's own rights: the operator token file (and the rest of the Commonroom config folder), the room's
 * database, its lock and its folder of logs. Everything else — the working folder, the network, the rest of
 * the user's files — stays as it is, so builds, git and dev servers work as before. The person's own shells
 * (the operator's) are never sandboxed.
 *
 * Linux: bubblewrap (Debian's `bubblewrap`), with the whole file system bound as it is, the hidden folders
 * covered by empty ones, the hidden files by an empty unreadable one, and a pid namespace with its own /proc
 * (so the room process's open files and memory under /proc/<pid>/ are out of reach). The network namespace
 * is kept: a dev server an agent starts listens where the person can reach it. macOS: sandbox-exec with a
 * profile that denies those paths. Windows and a missing or refused bubblewrap: no sandbox, said plainly.
 */
export type SandboxState =
  | { kind: 'bubblewrap'; program: string }
  | { kind: 'sandbox-exec'; program: string }
  | { kind: 'none'; reason: string };

/** What a sandbox hides: folders (shown empty) and files (shown unreadable). */
export interface SandboxHidden {
  dirs: string[];
  files: string[];
  /** An empty file with no permissions, bound over each hidden file (Linux). */
  mask: string;
}

/** Which sandbox this machine gives agents' processes, decided once per room process (a probe run on Linux). */
export function detectSandbox(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SandboxState {
  if (env.COMMONROOM_SANDBOX === 'off') return { kind: 'none', reason: 'it is turned off (COMMONROOM_SANDBOX=off)' };
  if (platform === 'linux') {
    const program = findOnPath('bwrap', env.PATH ?? '');
    if (!program) return { kind: 'none', reason: 'bubblewrap is not installed (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)' };
    const probe = spawnSync(program, ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--die-with-parent', '--', 'true'], { timeout: 5000, encoding: 'utf8' });
    if (probe.status !== 0) {
      const why = (probe.stderr || probe.error?.message || `exit ${probe.status ?? probe.signal}`).trim().split('\n')[0];
      return { kind: 'none', reason: `bubblewrap cannot make a sandbox here (${why}): allow unprivileged user namespaces, or run in a container that does` };
    }
    return { kind: 'bubblewrap', program };
  }
  if (platform === 'darwin') {
    const program = '/usr/bin/sandbox-exec';
    return fs.existsSync(program) ? { kind: 'sandbox-exec', program } : { kind: 'none', reason: 'sandbox-exec is missing from this macOS' };
  }
  return { kind: 'none', reason: `Commonroom has no sandbox for ${platform === 'win32' ? 'Windows' : platform} yet` };
}

/** A sandbox-exec profile string literal. */
function sbString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The program and arguments that run `file args` inside the sandbox (unchanged without one). */
export function sandboxedLaunch(state: SandboxState, file: string, args: string[], hidden: SandboxHidden, uid: number | null): { file: string; args: string[] } {
  if (state.kind === 'none') return { file, args };
  if (state.kind === 'sandbox-exec') {
    const rules = [...hidden.dirs.map((d) => `(subpath ${sbString(d)})`), ...hidden.files.map((f) => `(literal ${sbString(f)})`)];
    const profile = `(version 1)(allow default)${rules.length > 0 ? `(deny file-read* file-write* ${rules.join(' ')})` : ''}`;
    return { file: state.program, args: ['-p', profile, file, ...args] };
  }
  const wrap = ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--die-with-parent'];
  // root reads anything whatever its mode: without its capabilities, an unreadable mask holds for it too
  if (uid === 0) wrap.push('--cap-drop', 'ALL');
  for (const dir of hidden.dirs) if (isKind(dir, 'dir')) wrap.push('--tmpfs', dir);
  for (const file of hidden.files) if (isKind(file, 'file')) wrap.push('--ro-bind', hidden.mask, file);
  return { file: state.program, args: [...wrap, '--', file, ...args] };
}

function isKind(p: string, kind: 'dir' | 'file'): boolean {
  try {
    const s = fs.statSync(p);
    return kind === 'dir' ? s.isDirectory() : s.isFile();
  } catch {
    return false;
  }
}

/**
 * The empty, unreadable file bound over hidden files, kept in `dir` (the runner's private sandbox/ folder).
 * Checked before every launch without following links: a symlink planted in its place is replaced, never
 * chmod-ed through (which would take the permissions off whatever it pointed at), and a folder or file
 * put there is replaced too, so later shells and stages still start (fs-safe's `ensureOwnDir`, `ensureExactFile`).
 */
export function ensureMask(dir: string): string {
  ensureOwnDir(dir);
  const mask = path.join(dir, 'sandbox-mask');
  ensureExactFile(mask, '', 0o000);
  return mask;
}

/** Where one room keeps what agents must not read (paths.ts of the room, gathered here). */
export interface RoomSecrets {
  configDir: string;
  dataDir: string;
  markdownPath: string;
  databasePath: string;
  lockPath: string;
}

/**
 * The room's sandbox for agents' processes: detected on first use, the same for every shell and stage. What
 * it hides is gathered at each launch (a room folder made since is covered too).
 */
export class AgentSandbox {
  private detected: SandboxState | undefined;

  constructor(
    private readonly secrets: RoomSecrets,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get state(): SandboxState {
    this.detected ??= detectSandbox(this.env);
    return this.detected;
  }

  /** What an agent's `file args` becomes: the same program run inside the sandbox (or as it is, without one). */
  wrap(file: string, args: string[]): { file: string; args: string[] } {
    const state = this.state;
    if (state.kind === 'none') return { file, args };
    return sandboxedLaunch(state, file, args, this.hidden(), typeof process.getuid === 'function' ? process.getuid() : null);
  }

  /** In words, for the banner, room_info and the Agents screen. */
  describe(): string {
    const state = this.state;
    if (state.kind === 'none') return `none: ${state.reason}. An agent with shells or graphs can act as you here, read your tokens and change the room`;
    return `${state.kind}: agents' shells and graph stages cannot read this room's tokens, database, lock or logs`;
  }

  private hidden(): SandboxHidden {
    const { configDir, dataDir, markdownPath, databasePath, lockPath } = this.secrets;
    const roomDir = roomStateDir(markdownPath);
    // made now if missing, so it is covered from the start (the room fills it later)
    fs.mkdirSync(roomDir, { recursive: true, mode: 0o700 });
    const files = [databasePath, `${databasePath}-wal`, `${databasePath}-shm`, lockPath, `${lockPath}-wal`, `${lockPath}-shm`, `${lockPath}-journal`, `${databasePath}-journal`];
    const dirs = [configDir, roomDir];
    // other rooms kept in the runner's data folder: their databases and folders too
    const rooms = roomsFolder(dataDir);
    try {
      for (const name of fs.readdirSync(rooms)) {
        const full = path.join(rooms, name);
        if (ROOM_FOLDER_NAME.test(name)) dirs.push(full);
        else if (ROOM_FILE_NAME.test(name)) files.push(full);
      }
    } catch {
      // no rooms folder
    }
    return { dirs: [...new Set(dirs)], files: [...new Set(files)], mask: ensureMask(sandboxFolder(dataDir)) };
  }
}
