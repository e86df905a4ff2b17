import { findOnPath } from './find-on-path';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureExactFile, ensureOwnDir } from '../core/fs-safe';
import { ROOM_FILE_NAME, ROOM_FOLDER_NAME, agentRunsFolder, roomsFolder, roomStateDir, sandboxFolder, worktreeBesideRoom } from '../core/room-paths';
import { SANDBOX_AGENT_STATE, SANDBOX_CACHE_FOLDERS, SANDBOX_MADE_WHEN_MISSING, SANDBOX_READ_ONLY_HOME, SANDBOX_TEMP_FOLDERS, SANDBOX_WRITE_POLICY } from '../../common/sandbox-policy';
import { gitPlaces } from './sandbox-git';
import { runProbe } from './sandbox-probe';
import { argsFileContent, bwrapEnvArgs, bwrapLaunch, envScript, sandboxExecLaunch, sandboxExecProfile, writeLaunchFile, type Launch } from './sandbox-launch';
import { realPath, within, writeMounts, type WritePolicy } from './sandbox-mounts';

/**
 * The OS sandbox an agent's shells and graph stages run in. It keeps an agent from reading the room's secrets
 * with the person's own rights (the operator token file and the rest of the Commonroom config folder, the
 * room's database, its lock and its folder of logs, other agents' run folders), and lets it write only where
 * its work is (common/sandbox-policy.ts): its working folder, temp folders, tool caches and its client's own
 * state; the rest of the file system is read-only, and so are the person's start-up files and each
 * repository's .git/config and hooks. The network is shared: a dev server an agent starts listens where the
 * person can reach it. The sandbox program itself starts with a fixed environment (sandbox-launch.ts). The
 * person's own shells (the operator's) are never sandboxed.
 *
 * Linux: bubblewrap (Debian's `bubblewrap`): the file system bound read-only, the writable places bound
 * writable over it (sandbox-mounts.ts), the hidden folders covered by empty ones, the hidden files by an empty
 * unreadable one, and a pid namespace with its own /proc (so the room process's open files and memory under
 * /proc/<pid>/ are out of reach). macOS: sandbox-exec with a profile saying the same. Windows and a missing or
 * refused bubblewrap: no sandbox, said plainly (with the fix where the OS blocks it).
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

/** What detection asks the OS, injectable for tests. */
export interface SandboxProbe {
  /** Runs bubblewrap once with the namespaces the sandbox uses: whether it worked, and else why. */
  run?: (program: string) => { ok: boolean; why: string };
  /** A small file of the OS (a sysctl under /proc/sys), or null where it is missing. */
  readFile?: (file: string) => string | null;
}

/** Ubuntu 23.10 and later: 1 while AppArmor keeps programs without a profile allowing it from user namespaces. */
export const APPARMOR_USERNS_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

function readOsFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Why bubblewrap failed where AppArmor restricts user namespaces, and the two ways to let it work. */
export function appArmorReason(program: string, why: string): string {
  return (
    `bubblewrap cannot make a sandbox here (${why}): AppArmor restricts unprivileged user namespaces on this system ` +
    `(${APPARMOR_USERNS_SYSCTL.replace('/proc/sys/', '').replace(/\//g, '.')} = 1, Ubuntu 23.10 and later), and bubblewrap needs them. ` +
    `Allow them for bubblewrap alone with an AppArmor profile: write /etc/apparmor.d/bwrap holding ` +
    `"abi <abi/4.0>, include <tunables/global> profile bwrap ${program} flags=(unconfined) { userns, }" ` +
    `(one statement a line) and run "sudo apparmor_parser -r /etc/apparmor.d/bwrap"; ` +
    `or lift the restriction for every program with "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" ` +
    `(kept across restarts in /etc/sysctl.d/). Then start the room again`
  );
}

/** Which sandbox this machine gives agents' processes, decided once per room process (a probe run on Linux). */
export function detectSandbox(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, probe: SandboxProbe = {}): SandboxState {
  if (env.COMMONROOM_SANDBOX === 'off') return { kind: 'none', reason: 'it is turned off (COMMONROOM_SANDBOX=off)' };
  if (platform === 'linux') {
    const program = findOnPath('bwrap', env.PATH ?? '');
    if (!program) return { kind: 'none', reason: 'bubblewrap is not installed (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)' };
    const result = (probe.run ?? runProbe)(program);
    if (!result.ok) {
      if ((probe.readFile ?? readOsFile)(APPARMOR_USERNS_SYSCTL)?.trim() === '1') return { kind: 'none', reason: appArmorReason(program, result.why) };
      return { kind: 'none', reason: `bubblewrap cannot make a sandbox here (${result.why}): allow unprivileged user namespaces, or run in a container that does` };
    }
    return { kind: 'bubblewrap', program };
  }
  if (platform === 'darwin') {
    const program = '/usr/bin/sandbox-exec';
    return fs.existsSync(program) ? { kind: 'sandbox-exec', program } : { kind: 'none', reason: 'sandbox-exec is missing from this macOS' };
  }
  return { kind: 'none', reason: `Commonroom has no sandbox for ${platform === 'win32' ? 'Windows' : platform} yet` };
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

/** How the person widens or narrows where one agent writes (the lead wires them to the room's settings). */
export interface SandboxHooks {
  /** Folders or files `owner` may write besides the defaults (absolute, or `~/…` in the home folder; default none). */
  extraWritable?: (owner: string) => string[];
  /** Whether `owner` may write its working folder `cwd` (default yes; no: a completed handoff's worktree). */
  workFolderWritable?: (owner: string, cwd: string) => boolean;
}

/** One process an agent starts in the sandbox. */
export interface SandboxRequest {
  file: string;
  args: string[];
  /** Its whole environment (tagged): set inside the sandbox, never on the sandbox program. */
  env: NodeJS.ProcessEnv;
  /** Its working folder: writable unless `workFolderWritable` says not. */
  cwd: string;
  /** The agent it runs for. */
  owner: string;
  /** The agent's own run folder (agent_start): readable, while every other run folder is hidden. */
  runFolder?: string | undefined;
}

/**
 * The room's sandbox for agents' processes: detected on first use, the same for every shell and stage. What
 * it hides and where it lets an agent write are gathered at each launch (a room folder or a repository made
 * since is covered too).
 */
export class AgentSandbox {
  private detected: SandboxState | undefined;

  constructor(
    private readonly secrets: RoomSecrets,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private hooks: SandboxHooks = {},
    private readonly probe: SandboxProbe = {},
  ) {}

  /** Hooks the engine gives once it is built (they read its features' records); later ones win. */
  addHooks(more: SandboxHooks): void {
    this.hooks = { ...this.hooks, ...more };
  }

  get state(): SandboxState {
    this.detected ??= detectSandbox(this.env, process.platform, this.probe);
    return this.detected;
  }

  /**
   * What an agent's process becomes: the sandbox program with a fixed environment, the process's own
   * environment set inside (or the process as it is, without a sandbox).
   */
  wrap(request: SandboxRequest): Launch {
    const state = this.state;
    const { file, args, env } = request;
    if (state.kind === 'none') return { file, args, env };
    const hidden = this.hidden();
    const runs = agentRunsFolder(this.secrets.dataDir);
    const readable = request.runFolder && isKind(request.runFolder, 'dir') ? [request.runFolder] : [];
    if (state.kind === 'sandbox-exec') {
      const mounts = writeMounts(this.policy(request, true));
      const envFile = writeLaunchFile(this.launchFolder(), envScript(env));
      const profile = sandboxExecProfile({ mounts, hiddenDirs: [...hidden.dirs, runs].map(realPath), hiddenFiles: hidden.files.map(realPath), readableDirs: readable.map(realPath), envFile: realPath(envFile) });
      return sandboxExecLaunch(state.program, profile, env, file, args, envFile);
    }
    const options = ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent'];
    // root reads anything whatever its mode: without its capabilities, an unreadable mask holds for it too
    if (typeof process.getuid === 'function' && process.getuid() === 0) options.push('--cap-drop', 'ALL');
    for (const m of writeMounts(this.policy(request, false))) options.push(m.mode === 'rw' ? '--bind' : '--ro-bind', m.path, m.path);
    for (const dir of hidden.dirs) if (isKind(dir, 'dir')) options.push('--tmpfs', dir);
    for (const f of hidden.files) if (isKind(f, 'file')) options.push('--ro-bind', hidden.mask, f);
    // other agents' run folders hidden; its own shown read-only (its client reads its configuration there)
    if (isKind(runs, 'dir')) options.push('--tmpfs', runs, ...readable.flatMap((d) => ['--ro-bind', d, d]));
    options.push(...bwrapEnvArgs(env));
    return bwrapLaunch(state.program, env, file, args, writeLaunchFile(this.launchFolder(), argsFileContent(options)));
  }

  /** In words, for the banner, room_info and the Agents screen. */
  describe(): string {
    const state = this.state;
    if (state.kind === 'none') return `none: ${state.reason}. An agent with shells or graphs can act as you here, read your tokens and change the room`;
    return `${state.kind}: agents' shells and graph stages cannot read this room's tokens, database, lock or logs, and ${SANDBOX_WRITE_POLICY}`;
  }

  /** Where `request` may write (the places of common/sandbox-policy.ts, its working folder, the hooks' answers). */
  policy(request: Pick<SandboxRequest, 'cwd' | 'owner'>, denyMissing: boolean): WritePolicy {
    const home = this.env.HOME || os.homedir();
    const dataDir = realPath(this.secrets.dataDir);
    const hidden = [this.secrets.configDir, roomStateDir(this.secrets.markdownPath), agentRunsFolder(this.secrets.dataDir)].map(realPath);
    const inHome = (list: readonly string[]) => list.map((p) => path.join(home, p));
    for (const p of fs.existsSync(home) ? inHome(SANDBOX_MADE_WHEN_MISSING) : []) {
      try {
        fs.mkdirSync(p, { recursive: true });
      } catch {
        // a dangling link or a folder it may not write: left as it is (and read-only)
      }
    }
    const writable: string[] = [];
    // the room's handoff worktrees: another agent's is not writable from a folder holding them (its own is, its cwd being deeper)
    const roomWorktrees = path.dirname(worktreeBesideRoom(this.secrets.markdownPath, '_'));
    const readOnly = [...inHome(SANDBOX_READ_ONLY_HOME), this.secrets.dataDir, roomWorktrees];
    const cwd = realPath(request.cwd);
    if (this.hooks.workFolderWritable?.(request.owner, cwd) ?? true) {
      writable.push(cwd);
      const git = gitPlaces(cwd);
      if (git) {
        writable.push(...git.writable);
        readOnly.push(...git.readOnly);
      }
    }
    const caches = [...inHome(SANDBOX_CACHE_FOLDERS), ...(this.env.XDG_CACHE_HOME ? [this.env.XDG_CACHE_HOME] : [])];
    writable.push(...caches, ...inHome(SANDBOX_AGENT_STATE), ...(this.hooks.extraWritable?.(request.owner) ?? []).map((p) => (p === '~' || p.startsWith('~/') ? path.join(home, p.slice(1)) : p)).filter((p) => path.isAbsolute(p)));
    const tmpdir = this.env.TMPDIR;
    // macOS: TMPDIR is /var/folders/…/T, beside the user's cache folder C (compilers and xcrun write there)
    const darwinUserDir = tmpdir && /^(\/private)?\/var\/folders\/.+\/T\/?$/.test(tmpdir) ? [path.dirname(path.resolve(tmpdir))] : [];
    const temp = [...SANDBOX_TEMP_FOLDERS, ...(tmpdir ? [tmpdir] : []), ...darwinUserDir];
    // the runner's data folder stays read-only but for handoffs' worktrees (in its worktrees/ or beside a room of its rooms/)
    const worktreeArea = (p: string) => {
      const [top, second, third] = path.relative(dataDir, p).split(path.sep);
      return third !== undefined && (top === 'worktrees' || (top === 'rooms' && (second ?? '').endsWith('.worktrees')));
    };
    const never = (p: string) => hidden.some((h) => within(p, h)) || (within(p, dataDir) && !worktreeArea(p));
    return { temp, writable, readOnly, never, denyMissing };
  }

  /** Where launch files wait for their launcher: a folder of the runner's inside the (hidden) config folder. */
  private launchFolder(): string {
    return path.join(this.secrets.configDir, 'sandbox-launch');
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
