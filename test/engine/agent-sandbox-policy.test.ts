/**
 * The sandbox's launch and write policy as built, on any OS: the sandbox program (bubblewrap, sandbox-exec)
 * gets a fixed environment and the agent's variables travel in a private file, never on a command line; the
 * mounts make the working folder, temp folders, caches and client state writable and keep start-up files, git
 * configuration and the runner's data folder read-only; the person's hooks widen or narrow it; and where
 * AppArmor blocks bubblewrap the reason says so with the fix.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSandbox, APPARMOR_USERNS_SYSCTL, detectSandbox, type SandboxHooks } from '../../src-main/engine/process/agent-sandbox';
import { gitPlaces } from '../../src-main/engine/process/sandbox-git';
import { envScript, LAUNCH_PATH, sandboxExecLaunch, sandboxExecProfile } from '../../src-main/engine/process/sandbox-launch';
import { writeMounts, type Mount } from '../../src-main/engine/process/sandbox-mounts';
import { findOnPath } from '../../src-main/engine/process/find-on-path';

let root: string;
let home: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-policy-')));
  home = path.join(root, 'home');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, '.bashrc'), '# the person\'s\n');
  fs.mkdirSync(path.join(home, '.claude'));
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const working = { run: () => ({ ok: true, why: '' }) };

function sandboxFor(hooks: SandboxHooks = {}): AgentSandbox {
  const dataDir = path.join(root, 'data');
  const configDir = path.join(root, 'config');
  fs.mkdirSync(path.join(dataDir, 'rooms'), { recursive: true });
  fs.mkdirSync(configDir, { recursive: true });
  const markdownPath = path.join(dataDir, 'rooms', 'default.md');
  return new AgentSandbox(
    { configDir, dataDir, markdownPath, databasePath: `${markdownPath}.commonroom.db`, lockPath: `${markdownPath}.commonroom.lock` },
    { PATH: process.env.PATH, HOME: home, TMPDIR: os.tmpdir() },
    hooks,
    working,
  );
}

const rw = (mounts: Mount[]) => mounts.filter((m) => m.mode === 'rw').map((m) => m.path);
const ro = (mounts: Mount[]) => mounts.filter((m) => m.mode === 'ro').map((m) => m.path);

describe('where bubblewrap cannot make a sandbox', () => {
  const bwrap = findOnPath('bwrap', process.env.PATH ?? '') ?? '/usr/bin/bwrap';
  const env = { PATH: path.dirname(bwrap) };
  const refused = () => ({ ok: false, why: 'setting up uid map: Permission denied' });

  it("says AppArmor's restriction of user namespaces is the cause (Ubuntu 23.10+), with both fixes", () => {
    const state = detectSandbox(env, 'linux', { run: refused, readFile: (f) => (f === APPARMOR_USERNS_SYSCTL ? '1\n' : null) });
    expect(state.kind).toBe('none');
    const reason = state.kind === 'none' ? state.reason : '';
    expect(reason).toContain('setting up uid map: Permission denied');
    expect(reason).toMatch(/AppArmor restricts unprivileged user namespaces/);
    expect(reason).toContain(`profile bwrap ${bwrap} flags=(unconfined) { userns, }`);
    expect(reason).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
  });

  it('gives the general reason where AppArmor is not the cause, and a sandbox where the probe works', () => {
    for (const value of ['0\n', null]) {
      const state = detectSandbox(env, 'linux', { run: refused, readFile: () => value });
      expect(state).toEqual({ kind: 'none', reason: expect.stringMatching(/^bubblewrap cannot make a sandbox here \(setting up uid map: Permission denied\): allow unprivileged user namespaces/) });
    }
    expect(detectSandbox(env, 'linux', { ...working, readFile: () => '1' })).toEqual({ kind: 'bubblewrap', program: bwrap });
  });
});

describe('the clean launch', () => {
  it('bubblewrap: a /bin/sh launcher with PATH and the tag only; the variables in a 0600 file in the hidden config folder, not in argv', () => {
    const sandbox = sandboxFor();
    const launch = sandbox.wrap({ file: '/bin/echo', args: ['hi'], env: { SECRET: 's3cret-token', LD_PRELOAD: '/x.so', COMMONROOM_PROC_TAG: 'tag-1' }, cwd: home, owner: 'a' });
    expect(launch.env).toEqual({ PATH: LAUNCH_PATH, COMMONROOM_PROC_TAG: 'tag-1' });
    expect(launch.file).toBe('/bin/sh');
    expect(launch.args.join(' ')).not.toMatch(/s3cret|LD_PRELOAD/);
    expect(launch.args.slice(-3)).toEqual(['--', '/bin/echo', 'hi']);
    const argsFile = launch.args[3] as string;
    expect(argsFile.startsWith(path.join(root, 'config'))).toBe(true);
    expect(fs.statSync(argsFile).mode & 0o777).toBe(0o600);
    const options = fs.readFileSync(argsFile, 'utf8').split('\0');
    expect(options).toContain('--clearenv');
    expect(options.join('\n')).toContain('--setenv\nSECRET\ns3cret-token');
    expect(options.join('\n')).toContain('--setenv\nLD_PRELOAD\n/x.so');
    expect(options.slice(0, 3)).toEqual(['--ro-bind', '/', '/']);
  });

  it('sandbox-exec: launched with PATH and the tag only; the variables sourced inside from a file the profile lets it read', () => {
    const envFile = path.join(root, 'config', 'sandbox-launch', 'launch-x');
    const profile = sandboxExecProfile({ mounts: [{ mode: 'rw', path: '/work' }, { mode: 'ro', path: '/work/.git/config' }], hiddenDirs: [path.join(root, 'config')], hiddenFiles: ['/r.db'], readableDirs: ['/runs/mine'], envFile });
    expect(profile).toMatch(/^\(version 1\)\(allow default\)\(deny file-write\* \(subpath "\/"\)\)/);
    expect(profile.indexOf('(allow file-write* (subpath "/work"))')).toBeLessThan(profile.indexOf('(deny file-write* (subpath "/work/.git/config"))'));
    expect(profile).toContain(`(deny file-read* file-write* (subpath "${path.join(root, 'config')}") (literal "/r.db"))`);
    expect(profile.endsWith(`(allow file-read* file-write-unlink (literal "${envFile}"))`)).toBe(true);
    const env = { DYLD_INSERT_LIBRARIES: '/evil.dylib', TOKEN: "it's secret", COMMONROOM_PROC_TAG: 't', 'not-a-name': 'x' };
    const launch = sandboxExecLaunch('/usr/bin/sandbox-exec', profile, env, '/bin/zsh', ['-l'], envFile);
    expect(launch.env).toEqual({ PATH: LAUNCH_PATH, COMMONROOM_PROC_TAG: 't' });
    expect(launch.args.join(' ')).not.toMatch(/secret|DYLD/);
    expect(launch.args.slice(0, 3)).toEqual(['-p', profile, '/bin/sh']);
    expect(launch.args.slice(-3)).toEqual([envFile, '/bin/zsh', '-l']);
    const script = envScript(env);
    expect(script).toContain("TOKEN='it'\\''s secret'");
    expect(script).toContain("DYLD_INSERT_LIBRARIES='/evil.dylib'");
    expect(script).toContain('unset PATH');
    expect(script).not.toContain('not-a-name');
    // what the launcher sources gives exactly those variables
    const shown = execFileSync('/bin/sh', ['-c', `set -a; . "$0"; set +a; exec /usr/bin/env`, writeTemp(script)], { env: { PATH: LAUNCH_PATH, COMMONROOM_PROC_TAG: 't' }, encoding: 'utf8' });
    expect(shown).toContain("TOKEN=it's secret");
    expect(shown).not.toMatch(/^PATH=/m);
  });
});

function writeTemp(text: string): string {
  const f = path.join(root, 'env.sh');
  fs.writeFileSync(f, text);
  return f;
}

describe('the write policy', () => {
  it('an agent started in the home folder writes its entries, not its top (so no missing start-up file is made), and never .bashrc', () => {
    const sandbox = sandboxFor();
    const mounts = writeMounts(sandbox.policy({ cwd: home, owner: 'a' }, false));
    expect(rw(mounts)).not.toContain(home);
    expect(rw(mounts)).toEqual(expect.arrayContaining([path.join(home, '.claude'), path.join(home, '.cache'), path.join(home, '.npm'), '/tmp']));
    expect(ro(mounts)).toContain(path.join(home, '.bashrc'));
    expect(ro(mounts)).not.toContain(path.join(home, '.zshrc'));
    // deeper places come after the folders holding them
    const order = mounts.map((m) => m.path);
    expect(order.indexOf(path.join(home, '.bashrc'))).toBeGreaterThan(-1);
    // sandbox-exec denies a missing file as it is: the home folder itself is writable there
    const denied = writeMounts(sandbox.policy({ cwd: home, owner: 'a' }, true));
    expect(rw(denied)).toContain(home);
    expect(ro(denied)).toEqual(expect.arrayContaining([path.join(home, '.zshrc'), path.join(home, '.bashrc')]));
  });

  it("a project folder is writable, the runner's data folder is not (but for a handoff's worktree in it)", () => {
    const project = path.join(home, 'project');
    fs.mkdirSync(project);
    const sandbox = sandboxFor();
    expect(rw(writeMounts(sandbox.policy({ cwd: project, owner: 'a' }, false)))).toContain(project);
    const rooms = path.join(root, 'data', 'rooms');
    expect(rw(writeMounts(sandbox.policy({ cwd: rooms, owner: 'a' }, false)))).not.toContain(rooms);
    const worktree = path.join(rooms, 'default.worktrees', 'h1');
    fs.mkdirSync(worktree, { recursive: true });
    expect(rw(writeMounts(sandbox.policy({ cwd: worktree, owner: 'a' }, false)))).toContain(worktree);
  });

  it("a room's handoff worktrees are read-only from a folder holding them, but for the agent's own (its cwd)", () => {
    const folder = path.join(home, 'work');
    const mine = path.join(folder, 'notes.worktrees', 'h1');
    fs.mkdirSync(mine, { recursive: true });
    fs.mkdirSync(path.join(folder, 'notes.worktrees', 'h2'));
    const dataDir = path.join(root, 'data');
    const configDir = path.join(root, 'config');
    fs.mkdirSync(configDir, { recursive: true });
    const markdownPath = path.join(folder, 'notes.md');
    const sandbox = new AgentSandbox({ configDir, dataDir, markdownPath, databasePath: `${markdownPath}.commonroom.db`, lockPath: `${markdownPath}.commonroom.lock` }, { PATH: process.env.PATH, HOME: home }, {}, working);
    const fromFolder = writeMounts(sandbox.policy({ cwd: folder, owner: 'a' }, false));
    expect(rw(fromFolder)).toContain(folder);
    expect(ro(fromFolder)).toContain(path.join(folder, 'notes.worktrees'));
    const own = writeMounts(sandbox.policy({ cwd: mine, owner: 'a' }, false));
    expect(rw(own)).toContain(mine);
    // deeper wins: its own worktree is bound writable after the folder of worktrees is bound read-only
    const at = (p: string) => own.findIndex((m) => m.path === p);
    expect(at(mine)).toBeGreaterThan(at(path.join(folder, 'notes.worktrees')));
  });

  it("the person's hooks: extraWritable widens one agent's places, workFolderWritable makes its working folder read-only", () => {
    const project = path.join(home, 'project');
    const shared = path.join(home, 'shared');
    fs.mkdirSync(project);
    fs.mkdirSync(shared);
    const sandbox = sandboxFor({ extraWritable: (owner) => (owner === 'a' ? ['~/shared'] : []), workFolderWritable: (owner, cwd) => !(owner === 'b' && cwd === project) });
    expect(rw(writeMounts(sandbox.policy({ cwd: project, owner: 'a' }, false)))).toEqual(expect.arrayContaining([project, shared]));
    const b = rw(writeMounts(sandbox.policy({ cwd: project, owner: 'b' }, false)));
    expect(b).not.toContain(project);
    expect(b).not.toContain(shared);
    expect(sandbox.describe()).toMatch(/^bubblewrap: .* they write only their working folder, temp folders, tool caches .* \.git\/config and hooks$/);
  });

  it("in a repository and its linked worktree: the git folders writable, their config, hooks and info read-only (made where missing), the worktree's .git file too", () => {
    const repo = path.join(home, 'repo');
    fs.mkdirSync(repo);
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=p@e', '-c', 'user.name=p', ...args], { cwd, encoding: 'utf8' });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'first');
    git(repo, 'worktree', 'add', '-q', '-b', 'f', path.join(home, 'wt'));
    fs.rmSync(path.join(repo, '.git', 'hooks'), { recursive: true });
    const common = path.join(repo, '.git');
    const places = gitPlaces(path.join(home, 'wt'));
    expect(places?.writable).toEqual([path.join(common, 'worktrees', 'wt'), path.join(common, 'objects'), path.join(common, 'refs'), path.join(common, 'logs')]);
    expect(places?.readOnly).toEqual(expect.arrayContaining(['config', 'hooks', 'info'].map((n) => path.join(common, n)).concat(path.join(home, 'wt', '.git'))));
    expect(fs.statSync(path.join(common, 'hooks')).isDirectory()).toBe(true);
    const mounts = writeMounts(sandboxFor().policy({ cwd: repo, owner: 'a' }, false));
    expect(rw(mounts)).toEqual(expect.arrayContaining([repo, common]));
    expect(ro(mounts)).toEqual(expect.arrayContaining(['config', 'hooks', 'info'].map((n) => path.join(common, n))));
    const at = (p: string) => mounts.findIndex((m) => m.path === p);
    expect(at(path.join(common, 'config'))).toBeGreaterThan(at(common));
    // a symlink where the hooks are cannot be covered: the repository's git folder stays read-only
    fs.rmSync(path.join(common, 'hooks'), { recursive: true });
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(common, 'hooks'));
    expect(gitPlaces(repo)?.writable).toEqual([]);
  });
});
