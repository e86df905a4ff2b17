/**
 * The walls of the agents' sandbox, tried the way a hostile agent would through the MCP endpoint with a real SDK
 * client (issue 40): variables it gives a stage or a shell (LD_PRELOAD of a library it compiled itself) never
 * run its code outside the sandbox; it writes only where its work is (its working folder, /tmp, ~/.cache),
 * never the person's start-up files, the repository's .git/config or hooks, another agent's run files or
 * anywhere else; while its ordinary work (a commit in its repository or worktree, `npm install` of a local
 * package) still works. The runner gets a home folder of its own (outside the temp folders, as a real one is).
 * Where this machine has no sandbox the tests are skipped with the reason, never passed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src-main/engine/process/agent-sandbox';
import { LAUNCH_PATH } from '../../src-main/engine/process/sandbox-launch';
import { agentRunsFolder } from '../../src-main/engine/core/room-paths';
import { callTool, connectAgent } from '../e2e/helpers/ui-room';
import { markedSleep, waitForProcessWith } from '../helpers/env';
import { startTestRunner, type TestRunner } from '../helpers/runner';

const sandbox = detectSandbox();
const reason = sandbox.kind === 'none' ? sandbox.reason : '';
const savedHome = process.env.HOME;
let runner: TestRunner;
let agent: Client;
let home: string;
let work: string;
let elsewhere: string;

interface Run {
  exitCode: number | null;
  output: string;
}

const GRAB_C = `#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void grab(void) {
  const char *from = getenv("GRAB_FROM"), *to = getenv("GRAB_TO");
  if (!from || !to) return;
  FILE *in = fopen(from, "r");
  if (!in) return;
  FILE *out = fopen(to, "a");
  if (out) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fclose(out);
  }
  fclose(in);
}
`;

/** A live process's environment as this machine sees it ({} once it is gone). */
function environOf(pid: number): Record<string, string> {
  try {
    return Object.fromEntries(
      fs
        .readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
  } catch {
    return {};
  }
}

const parentOf = (pid: number) => Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const commOf = (pid: number) => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=p@example.com', '-c', 'user.name=person', ...args], { cwd, encoding: 'utf8' });

beforeAll(async () => {
  // a home of the runner's own, where a real one is (not under /tmp, which agents may write)
  home = fs.mkdtempSync(path.join(os.homedir(), '.commonroom-walls-home-'));
  fs.writeFileSync(path.join(home, '.bashrc'), 'export FROM_BASHRC=yes\n');
  // a client's state where the person signed in to it once (Claude Code's)
  fs.mkdirSync(path.join(home, '.claude'));
  fs.writeFileSync(path.join(home, '.claude.json'), '{}\n');
  elsewhere = fs.mkdtempSync(path.join(home, 'elsewhere-'));
  process.env.HOME = home;
  runner = await startTestRunner();
  agent = await connectAgent(runner.running, 'builder');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-walls-work-'));
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await runner?.close();
  process.env.HOME = savedHome;
  for (const dir of [work, home]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function agentShell(cwd: string, env?: Record<string, string>): Promise<string> {
  const { shell } = await callTool<{ shell: { id: string; sandbox: string | null } }>(agent, 'shell_open', { shell: '/bin/sh', cwd, ...(env ? { env } : {}) });
  expect(shell.sandbox).toBe(sandbox.kind);
  return shell.id;
}

const run = (shellId: string, command: string) => callTool<Run>(agent, 'shell_run', { shellId, command, timeoutMs: 60_000 });

/** A library the agent compiles in its own sandbox whose constructor copies GRAB_FROM's file to GRAB_TO. */
async function compileGrabber(): Promise<string> {
  fs.writeFileSync(path.join(work, 'grab.c'), GRAB_C);
  const shellId = await agentShell(work);
  const built = await run(shellId, 'cc -shared -fPIC -o grab.so grab.c && echo BUILT');
  expect(built.output).toContain('BUILT');
  await callTool(agent, 'shell_close', { shellId });
  return path.join(work, 'grab.so');
}

async function graphLog(graphId: string, stageId: string): Promise<{ state: string; log: string }> {
  const { engine } = runner.running;
  let state = '';
  for (let i = 0; i < 1200; i++) {
    const status = await engine.call(engine.operator(), 'tasks_status', { graphId });
    state = 'graph' in status ? status.graph.state : '';
    if (['completed', 'failed'].includes(state)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const log = await engine.call(engine.operator(), 'tasks_status', { graphId, stageId, cursor: 'start' });
  return { state, log: 'log' in log ? log.log.records.map((r) => r.text).join('') : '' };
}

describe.skipIf(sandbox.kind === 'none')(`the sandbox's walls${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it("a stage's LD_PRELOAD never runs the agent's code outside the sandbox: the token is not copied, the stage still runs", async () => {
    const so = await compileGrabber();
    const grabbed = path.join(work, 'grabbed-by-stage');
    const env = { LD_PRELOAD: so, GRAB_FROM: runner.running.tokenFile, GRAB_TO: grabbed };
    const { graphId } = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'preload', stages: [{ id: 's', command: ['sh', '-c', 'echo stage-ran'], cwd: work, env }] });
    const { state, log } = await graphLog(graphId, 's');
    expect(state).toBe('completed');
    expect(log).toContain('stage-ran');
    const seen = fs.existsSync(grabbed) ? fs.readFileSync(grabbed, 'utf8') : '';
    expect(seen).not.toContain(runner.token);
  });

  it("a shell's LD_PRELOAD (shell_open's env) never runs the agent's code outside the sandbox either", async () => {
    const so = path.join(work, 'grab.so');
    if (!fs.existsSync(so)) await compileGrabber();
    const grabbed = path.join(work, 'grabbed-by-shell');
    const shellId = await agentShell(work, { LD_PRELOAD: so, GRAB_FROM: runner.running.tokenFile, GRAB_TO: grabbed });
    const r = await run(shellId, 'echo shell-ran; cat grabbed-by-shell 2>/dev/null; true');
    expect(r.output).toContain('shell-ran');
    expect(r.output).not.toContain(runner.token);
    const seen = fs.existsSync(grabbed) ? fs.readFileSync(grabbed, 'utf8') : '';
    expect(seen).not.toContain(runner.token);
    await callTool(agent, 'shell_close', { shellId });
  });

  it('bubblewrap starts with a fixed environment (no variable of the agent on it); every process inside is tagged and ended with its stage', async () => {
    const escapee = markedSleep();
    const main = markedSleep();
    const env = { LD_LIBRARY_PATH: '/nonexistent', GCONV_PATH: '/nonexistent', AGENT_CHOSE: 'this' };
    const { graphId } = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'tags', stages: [{ id: 's', command: ['sh', '-c', `setsid sleep ${escapee} & exec sleep ${main}`], cwd: work, env }] });
    const inner = await waitForProcessWith(escapee, 15_000);
    const mainPid = await waitForProcessWith(main, 15_000);
    const tag = environOf(mainPid).COMMONROOM_PROC_TAG;
    expect(tag).toBeTruthy();
    expect(environOf(inner)).toMatchObject({ COMMONROOM_PROC_TAG: tag, AGENT_CHOSE: 'this', LD_LIBRARY_PATH: '/nonexistent' });
    // the processes between it and the room: bubblewrap (outside the sandbox, and its pid 1 inside)
    const wrappers: number[] = [];
    for (let pid = parentOf(mainPid); pid > 1 && commOf(pid) === 'bwrap'; pid = parentOf(pid)) wrappers.push(pid);
    expect(wrappers.length).toBeGreaterThan(0);
    // the launcher's shell adds PWD (the stage's folder, chosen by the room): nothing else
    for (const pid of wrappers) expect(environOf(pid)).toEqual({ COMMONROOM_PROC_TAG: tag, PATH: LAUNCH_PATH, PWD: fs.realpathSync(work) });
    expect(environOf(wrappers.at(-1) as number).COMMONROOM_PROC_TAG).toBe(tag);
    await callTool(agent, 'tasks_cancel', { graphId });
    await expect.poll(() => [inner, mainPid, ...wrappers].filter(alive), { timeout: 15_000 }).toEqual([]);
  });

  it("the person's start-up files are read-only (~/.bashrc), missing ones cannot be made, and the person's next own shell is unaffected", async () => {
    const shellId = await agentShell(work);
    const r = await run(shellId, "echo 'echo PWNED-BY-AGENT' >> ~/.bashrc; echo bashrc=$?; echo 'echo PWNED' > ~/.zshrc; echo zshrc=$?; mkdir -p ~/.config/git; echo gitdir=$?; echo '[core] pager = evil' >> ~/.gitconfig; echo gitconfig=$?");
    expect(r.output).toMatch(/Read-only file system/);
    for (const what of ['bashrc', 'zshrc', 'gitdir', 'gitconfig']) expect(r.output).not.toMatch(new RegExp(`${what}=0`));
    expect(fs.readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('export FROM_BASHRC=yes\n');
    expect(fs.existsSync(path.join(home, '.zshrc'))).toBe(false);
    expect(fs.existsSync(path.join(home, '.gitconfig'))).toBe(false);
    await callTool(agent, 'shell_close', { shellId });
    const { engine } = runner.running;
    const { shell } = await engine.call(engine.operator(), 'shell_open', { shell: '/bin/bash', cwd: work });
    const mine = await engine.call(engine.operator(), 'shell_run', { shellId: shell.id, command: 'echo "rc=$FROM_BASHRC"', timeoutMs: 20_000 });
    expect(mine.output).toContain('rc=yes');
    expect(mine.output).not.toContain('PWNED');
    await engine.call(engine.operator(), 'shell_close', { shellId: shell.id });
  });

  it("another agent's run files can be neither read nor rewritten; an agent reads its own and writes its client's state", async () => {
    const { engine } = runner.running;
    const client = 'cat "$COMMONROOM_MCP_CONFIG"; echo "own=$?"; echo s > ~/.claude/session && echo \'{"n":1}\' > ~/.claude.json && echo "state=ok"; exec sleep 300';
    const started = await engine.call(engine.operator(), 'agent_start', { client: 'command', command: ['/bin/sh', '-c', client], cwd: work });
    const own = await engine.call(engine.operator(), 'shell_io', { shellId: started.agent.shellId, cursor: 'start', wait: { until: 'match', pattern: 'state=\\w+|No such|Read-only', timeoutMs: 20_000 } });
    expect(own.output).toContain('mcpServers');
    expect(own.output).toContain('own=0');
    expect(own.output).toContain('state=ok');
    expect(fs.readFileSync(path.join(home, '.claude.json'), 'utf8')).toBe('{"n":1}\n');
    const runs = agentRunsFolder(runner.home.paths.dataDir);
    const [runDir] = fs.readdirSync(runs).map((d) => path.join(runs, d));
    const config = path.join(runDir as string, 'mcp.json');
    const before = fs.readFileSync(config, 'utf8');
    const shellId = await agentShell(work);
    const r = await run(shellId, `ls -A '${runs}'; cat '${config}'; echo '{"mcpServers":{}}' > '${config}'; echo wrote=$?`);
    expect(r.output).not.toContain('mcpServers');
    expect(r.output).not.toContain('wrote=0');
    expect(fs.readFileSync(config, 'utf8')).toBe(before);
    await callTool(agent, 'shell_close', { shellId });
    await engine.call(engine.operator(), 'agent_stop', { shellId: started.agent.shellId, revoke: true });
  });

  it('writes outside the working folder fail (read-only file system) while the working folder, /tmp and ~/.cache work', async () => {
    const shellId = await agentShell(work);
    const data = runner.home.paths.dataDir;
    const denied = await run(shellId, `for f in '${elsewhere}/x' "$HOME/x" '${data}/x'; do echo no > "$f" && echo "WROTE $f"; done; true`);
    expect(denied.output).toMatch(/Read-only file system/);
    expect(denied.output).not.toContain('WROTE');
    const tmp = path.join(os.tmpdir(), `commonroom-walls-${process.pid}`);
    const allowed = await run(shellId, `echo a > inside.txt && echo b > '${tmp}' && mkdir -p ~/.cache/walls && echo c > ~/.cache/walls/f && echo ALL-WRITTEN`);
    expect(allowed.output).toContain('ALL-WRITTEN');
    expect(fs.readFileSync(path.join(work, 'inside.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(home, '.cache/walls/f'), 'utf8')).toBe('c\n');
    fs.rmSync(tmp, { force: true });
    await callTool(agent, 'shell_close', { shellId });
  });

  it(".git/config, hooks and info stay read-only in a repository and its worktree, while commits in both work", async () => {
    const repo = path.join(work, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'README'), 'hi\n');
    git(repo, 'add', 'README');
    git(repo, 'commit', '-qm', 'first');
    const wt = path.join(work, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', wt);
    const configBefore = fs.readFileSync(path.join(repo, '.git/config'), 'utf8');
    const commit = "echo change >> README && git add README && git -c user.email=a@b -c user.name=agent commit -qm change && echo COMMITTED";
    const plants = (gitDir: string) =>
      `echo '[core] fsmonitor = evil' >> '${gitDir}/config'; echo config=$?; printf '#!/bin/sh\\nevil\\n' > '${gitDir}/hooks/post-checkout'; echo hooks=$?; echo x >> '${gitDir}/info/exclude'; echo info=$?`;
    for (const [cwd, gitDir] of [
      [repo, '.git'],
      [wt, path.join(repo, '.git')],
    ] as const) {
      const shellId = await agentShell(cwd);
      const r = await run(shellId, `${plants(gitDir)}; mv .git .git-moved; echo moved=$?; ${commit}`);
      for (const what of ['config', 'hooks', 'info', 'moved']) expect(r.output, `${cwd}: ${what}`).not.toMatch(new RegExp(`${what}=0`));
      expect(r.output).toContain('COMMITTED');
      await callTool(agent, 'shell_close', { shellId });
    }
    expect(fs.readFileSync(path.join(repo, '.git/config'), 'utf8')).toBe(configBefore);
    expect(fs.existsSync(path.join(repo, '.git/hooks/post-checkout'))).toBe(false);
    expect(git(repo, 'log', '--oneline', 'main').trim().split('\n')).toHaveLength(2);
    expect(git(repo, 'log', '--oneline', 'feature').trim().split('\n')).toHaveLength(2);
  });

  it('npm install of a local folder dependency into the working folder works (no network)', async () => {
    const dep = path.join(work, 'dep');
    const app = path.join(work, 'app');
    fs.mkdirSync(dep);
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(dep, 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', main: 'index.js' }));
    fs.writeFileSync(path.join(dep, 'index.js'), "module.exports = 'from dep';\n");
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { dep: 'file:../dep' } }));
    const shellId = await agentShell(app);
    const r = await run(shellId, `npm install --offline --no-audit --no-fund >/dev/null 2>&1; echo npm=$?; ${process.execPath} -e "console.log(require('dep'))"`);
    expect(r.output).toContain('npm=0');
    expect(r.output).toContain('from dep');
    expect(fs.existsSync(path.join(app, 'node_modules/dep'))).toBe(true);
    await callTool(agent, 'shell_close', { shellId });
  });
});
