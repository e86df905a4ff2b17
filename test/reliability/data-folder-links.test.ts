/**
 * The room never follows what an agent plants in its data folder (issue 40, routes 3 and 4). Each file is
 * planted as an agent running without a sandbox could (written straight into the folder by the test), then
 * the room is used through its doors: the person's own bash shell (which sources shell-integration/
 * bash-init.sh), an agent's sandboxed shell (which binds sandbox/sandbox-mask), an agent started by the room
 * (its agent-runs/ folder). A swapped start-up file never runs as the person, a planted link never redirects a
 * write or a chmod, and a folder made where a file belongs never stops later shells.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src-main/engine/process/agent-sandbox';
import { agentRunsFolder, sandboxFolder, shellIntegrationFolder } from '../../src-main/engine/core/room-paths';
import { callTool, connectAgent } from '../e2e/helpers/ui-room';
import { startTestRunner, type TestRunner } from '../helpers/runner';

const sandbox = detectSandbox();
const reason = sandbox.kind === 'none' ? sandbox.reason : '';
let runner: TestRunner;
let agent: Client;
let work: string;
let dataDir: string;
let personsHome: string;
const feeders: ChildProcess[] = [];

beforeAll(async () => {
  runner = await startTestRunner();
  agent = await connectAgent(runner.running, 'builder');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-links-work-'));
  personsHome = fs.mkdtempSync(path.join(runner.home.root, 'person-home-'));
  dataDir = runner.home.paths.dataDir;
}, 60_000);

afterAll(async () => {
  for (const f of feeders) f.kill('SIGKILL');
  await agent?.close();
  await runner?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * Opens the person's own bash (unsandboxed, sourcing the integration files), runs `command`, closes it. Its HOME
 * is a throw-away folder: what is under test is the room's data folder, and the machine's own ~/.bashrc (a
 * pyenv init that waited a minute on a stale rehash lock) must neither slow it nor get its history.
 */
async function personsBash(command: string): Promise<string> {
  const { engine } = runner.running;
  const op = engine.operator();
  const env = { HOME: personsHome, HISTFILE: '/dev/null' };
  const { shell } = await engine.call(op, 'shell_open', { shell: '/bin/bash', cwd: work, env });
  try {
    const r = await engine.call(op, 'shell_run', { shellId: shell.id, command, timeoutMs: 20_000 });
    return r.output;
  } finally {
    await engine.call(op, 'shell_close', { shellId: shell.id });
  }
}

/** An agent's shell: opens, runs `command`, closes; answers its output and exit code. */
async function agentsShell(command: string): Promise<{ output: string; exitCode: number | null }> {
  const { shell } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { shell: '/bin/sh', cwd: work });
  try {
    return await callTool<{ output: string; exitCode: number | null }>(agent, 'shell_run', { shellId: shell.id, command, timeoutMs: 20_000 });
  } finally {
    await callTool(agent, 'shell_close', { shellId: shell.id });
  }
}

/** An agent's FIFO feeder: argv[1] the FIFO, then what each of two readers in turn is given. */
const FEEDER = `
const fs = require('fs');
const [fifo, first, second] = process.argv.slice(1);
const give = (text) => { const fd = fs.openSync(fifo, 'w'); fs.writeSync(fd, text); fs.closeSync(fd); };
give(first);
// wait until the first reader has closed it (a non-blocking open for writing fails with ENXIO then)
for (;;) {
  try { fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); } catch (e) { if (e.code === 'ENXIO') break; throw e; }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
}
give(second);
`;

const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;

describe("the person's shell start-up files (shell-integration/)", () => {
  it('a swapped bash-init.sh is never sourced by the next shell of the person: content, mode, or a FIFO that answers twice', async () => {
    expect(await personsBash('echo first')).toContain('first'); // the room writes its files
    const dir = shellIntegrationFolder(dataDir);
    const init = path.join(dir, 'bash-init.sh');
    const ours = fs.readFileSync(init, 'utf8');
    const marker = path.join(work, 'planted-ran');
    const evil = `echo planted > '${marker}'\n`;

    // 1. its content swapped, left readable by others
    fs.writeFileSync(init, evil, { mode: 0o644 });
    fs.chmodSync(init, 0o644);
    expect(await personsBash('echo second')).toContain('second');
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(init, 'utf8')).toBe(ours);
    expect(modeOf(init)).toBe(0o600);

    // 2. a second name kept for it (a hard link): once the room checked it, writing that name would change it
    const otherName = path.join(work, 'other-name.sh');
    fs.linkSync(init, otherName);
    expect(await personsBash('echo again')).toContain('again');
    fs.writeFileSync(otherName, evil);
    expect(fs.readFileSync(init, 'utf8')).toBe(ours);

    // 3. a FIFO in its place, fed by the agent's process: the room's own text to the first reader (the room
    // checking it), then, once that reader is gone, the planted line (and the room's text, so the shell works)
    // to the next (bash sourcing it)
    fs.rmSync(init);
    execFileSync('mkfifo', ['-m', '600', init]);
    const copy = path.join(work, 'ours.sh');
    fs.writeFileSync(copy, ours);
    const feeder = spawn(process.execPath, ['-e', FEEDER, init, ours, `${evil}. '${copy}'\n`], { stdio: 'ignore' });
    feeders.push(feeder);
    try {
      expect(await personsBash('echo third')).toContain('third');
      expect(fs.existsSync(marker), 'the planted line ran in the person\'s shell').toBe(false);
      expect(fs.lstatSync(init).isFile()).toBe(true);
    } finally {
      if (!fs.lstatSync(init).isFile()) fs.rmSync(init); // (a FIFO left there would hang the next test's room)
    }
    // the feeder may still be writing its second text into whatever the name is now (seen once under load: the
    // file read empty between its truncate and its write): it is stopped, and the next shell still finds the room's
    feeder.kill('SIGKILL');
    if (feeder.exitCode === null && feeder.signalCode === null) await new Promise((r) => feeder.once('exit', r));
    expect(await personsBash('echo fourth')).toContain('fourth');
    expect(fs.existsSync(marker), 'the planted line ran in the person\'s shell').toBe(false);
    expect(fs.readFileSync(init, 'utf8')).toBe(ours);
  });

  it('a symlink planted as zsh/.zshrc never overwrites its target, and extra zsh start-up files are removed', async () => {
    await personsBash('true');
    const zsh = path.join(shellIntegrationFolder(dataDir), 'zsh');
    const victim = path.join(work, 'victim.txt');
    fs.writeFileSync(victim, 'the person\'s own file\n');
    fs.rmSync(path.join(zsh, '.zshrc'));
    fs.symlinkSync(victim, path.join(zsh, '.zshrc'));
    // zsh reads a .zlogin from its ZDOTDIR, and a compiled .zshrc.zwc in place of .zshrc
    fs.writeFileSync(path.join(zsh, '.zlogin'), 'echo planted\n');
    fs.writeFileSync(path.join(zsh, '.zshrc.zwc'), 'planted');
    await personsBash('true');
    await agentsShell('true');
    expect(fs.readFileSync(victim, 'utf8')).toBe('the person\'s own file\n');
    expect(fs.lstatSync(path.join(zsh, '.zshrc')).isFile()).toBe(true);
    expect(fs.readdirSync(zsh).sort()).toEqual(['.zprofile', '.zshenv', '.zshrc']);
  });

  it('shell-integration/ itself made a symlink is replaced: the folder it pointed at is untouched and shells still start', async () => {
    const dir = shellIntegrationFolder(dataDir);
    const elsewhere = fs.mkdtempSync(path.join(work, 'elsewhere-'));
    fs.rmSync(dir, { recursive: true });
    fs.symlinkSync(elsewhere, dir);
    expect(await personsBash('echo still')).toContain('still');
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    expect(modeOf(dir)).toBe(0o700);
  });
});

describe.skipIf(sandbox.kind !== 'bubblewrap')(`the sandbox's mask file (sandbox/sandbox-mask)${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('made a symlink to a folder, it never changes that folder\'s mode; agent shells still cannot read the token', async () => {
    expect((await agentsShell('echo up')).output).toContain('up'); // the room makes its mask
    const mask = path.join(sandboxFolder(dataDir), 'sandbox-mask');
    const victim = fs.mkdtempSync(path.join(work, 'victim-dir-'));
    fs.chmodSync(victim, 0o755);
    fs.rmSync(mask);
    fs.symlinkSync(victim, mask);
    const r = await agentsShell(`cat '${runner.running.tokenFile}' 2>&1; echo done`);
    expect(modeOf(victim)).toBe(0o755);
    expect(r.output).toContain('done');
    expect(r.output).not.toContain(runner.token);
    expect(fs.lstatSync(mask).isFile()).toBe(true);
    expect(modeOf(mask)).toBe(0);
  });

  it('made a folder, it is replaced: later agent shells and stages start, and the token stays hidden', async () => {
    const mask = path.join(sandboxFolder(dataDir), 'sandbox-mask');
    fs.rmSync(mask, { recursive: true, force: true });
    fs.mkdirSync(path.join(mask, 'inside'), { recursive: true });
    const r = await agentsShell(`cat '${runner.running.tokenFile}' 2>&1; echo started`);
    expect(r.output).toContain('started');
    expect(r.output).not.toContain(runner.token);
    const { graphId } = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'after', stages: [{ id: 's', command: ['sh', '-c', 'echo stage-ran'] }] });
    const { engine } = runner.running;
    let state = '';
    for (let i = 0; i < 400 && !['completed', 'failed'].includes(state); i++) {
      const status = await engine.call(engine.operator(), 'tasks_status', { graphId });
      state = 'graph' in status ? status.graph.state : '';
      if (!['completed', 'failed'].includes(state)) await new Promise((res) => setTimeout(res, 50));
    }
    expect(state).toBe('completed');
    expect(fs.lstatSync(mask).isFile()).toBe(true);
  });
});

describe("an agent's run folder (agent-runs/)", () => {
  it('is made private and without following links: agent-runs/ planted as a symlink is replaced, the run folder is 0700 and its files 0600', async () => {
    const bin = fs.mkdtempSync(path.join(work, 'bin-'));
    fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\n[ "$1" = --version ] && { echo "fake 1.0"; exit 0; }\nexec sleep 60\n', { mode: 0o755 });
    const elsewhere = fs.mkdtempSync(path.join(work, 'runs-elsewhere-'));
    const runs = agentRunsFolder(dataDir);
    fs.rmSync(runs, { recursive: true, force: true });
    fs.symlinkSync(elsewhere, runs);
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath ?? ''}`;
    const { engine } = runner.running;
    try {
      const { agent: run } = await engine.call(engine.operator(), 'agent_start', { client: 'claude-code', cwd: work });
      expect(fs.readdirSync(elsewhere)).toEqual([]);
      expect(fs.lstatSync(runs).isDirectory()).toBe(true);
      const [runDir, ...others] = fs.readdirSync(runs);
      expect(others).toEqual([]);
      const full = path.join(runs, runDir as string);
      expect(modeOf(full)).toBe(0o700);
      expect(modeOf(path.join(full, 'mcp.json'))).toBe(0o600);
      await engine.call(engine.operator(), 'agent_stop', { shellId: run.shellId, revoke: true });
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
