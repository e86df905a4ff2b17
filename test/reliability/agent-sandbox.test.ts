/**
 * Agents' shells and graph stages cannot reach the room's secrets: inside the OS sandbox (bubblewrap here)
 * reading the operator token, the database and the lock fails, the room process's /proc entries are out of
 * sight, while the person's own shell still reads them and the agent's ordinary work (a build, git, a dev
 * server on a port reached from outside) still works. Through the MCP endpoint with a real SDK client. Where
 * this machine has no sandbox the tests are skipped with the reason, never passed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src-main/engine/process/agent-sandbox';
import { callTool, connectAgent } from '../e2e/helpers/ui-room';
import { startTestRunner, type TestRunner } from '../helpers/runner';

const sandbox = detectSandbox();
const reason = sandbox.kind === 'none' ? sandbox.reason : '';
let runner: TestRunner;
let agent: Client;
let work: string;

interface Run {
  status: string;
  exitCode: number | null;
  output: string;
}

beforeAll(async () => {
  runner = await startTestRunner();
  agent = await connectAgent(runner.running, 'builder');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-sandbox-work-'));
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await runner?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

async function agentShell(): Promise<string> {
  const { shell } = await callTool<{ shell: { id: string; sandbox: string | null } }>(agent, 'shell_open', { shell: '/bin/sh', cwd: work });
  expect(shell.sandbox).toBe(sandbox.kind);
  return shell.id;
}

const run = (client: Client, shellId: string, command: string) => callTool<Run>(client, 'shell_run', { shellId, command, timeoutMs: 20_000 });

describe.skipIf(sandbox.kind === 'none')(`an agent's shell in the sandbox${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it("cannot read the operator token, the database or the lock, nor the room process's /proc", async () => {
    const shellId = await agentShell();
    const { tokenFile } = runner.running;
    const { databasePath, lockPath } = runner.running.engine.room.location;
    for (const file of [tokenFile, databasePath, lockPath]) {
      const r = await run(agent, shellId, `cat '${file}' | od -c | head -3`);
      expect(r.output, `${file} was readable`).toMatch(/No such file|Permission denied/);
      expect(r.output).not.toContain(runner.token.slice(0, 12));
    }
    const listing = await run(agent, shellId, `ls -A '${path.dirname(tokenFile)}'; echo END`);
    expect(listing.output).not.toMatch(/operator\.token/);
    const proc = await run(agent, shellId, `cat /proc/${process.pid}/environ 2>&1 | head -c 200; ls /proc/${process.pid}/fd 2>&1 | head -3`);
    expect(proc.output).toMatch(/No such file/);
    expect(proc.output).not.toContain('COMMONROOM');
  });

  it("the person's own shell still reads them", async () => {
    const { engine } = runner.running;
    const { shell } = await engine.call(engine.operator(), 'shell_open', { shell: '/bin/sh', cwd: work });
    expect(shell.sandbox).toBeNull();
    const r = await engine.call(engine.operator(), 'shell_run', { shellId: shell.id, command: `cat '${runner.running.tokenFile}'`, timeoutMs: 20_000 });
    expect(r.output).toContain(runner.token);
    await engine.call(engine.operator(), 'shell_close', { shellId: shell.id });
  });

  it("the agent's ordinary work still works: a build, git, a dev server on a port reached from outside", async () => {
    const shellId = await agentShell();
    const build = await run(agent, shellId, "printf 'int main(){return 0;}' > m.c && echo built > out.txt && cat out.txt");
    expect(build).toMatchObject({ exitCode: 0 });
    expect(build.output).toContain('built');
    expect(fs.readFileSync(path.join(work, 'out.txt'), 'utf8')).toBe('built\n');
    const git = await run(agent, shellId, 'git init -q repo && cd repo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m first && git log --oneline | wc -l; cd ..');
    expect(git.exitCode).toBe(0);
    expect(git.output.trim()).toMatch(/1$/);
    const portFile = path.join(work, 'port');
    await run(agent, shellId, `${process.execPath} -e "const s=require('http').createServer((q,r)=>r.end('from the sandbox')).listen(0,'127.0.0.1',()=>require('fs').writeFileSync('${portFile}',String(s.address().port)))" &`);
    await expect.poll(() => fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').length > 0, { timeout: 15_000 }).toBe(true);
    const body = await (await fetch(`http://127.0.0.1:${fs.readFileSync(portFile, 'utf8')}/`)).text();
    expect(body).toBe('from the sandbox');
    await callTool(agent, 'shell_close', { shellId });
  });

  it("an agent's graph stage cannot read the token either; the operator's can", async () => {
    const token = runner.running.tokenFile;
    const graphOf = async (submit: () => Promise<{ graphId: string }>) => {
      const { graphId } = await submit();
      const { engine } = runner.running;
      for (let i = 0; i < 200; i++) {
        const status = await engine.call(engine.operator(), 'tasks_status', { graphId });
        if ('graph' in status && ['completed', 'failed'].includes(status.graph.state)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const log = await engine.call(engine.operator(), 'tasks_status', { graphId, stageId: 'peek', cursor: 'start' });
      return 'log' in log ? log.log.records.map((r) => r.text).join('') : '';
    };
    const spec = { name: 'peek', stages: [{ id: 'peek', command: ['sh', '-c', `cat '${token}' 2>&1; true`] }] };
    const agents = await graphOf(() => callTool<{ graphId: string }>(agent, 'tasks_run', spec));
    expect(agents).toMatch(/No such file|Permission denied/);
    expect(agents).not.toContain(runner.token);
    const { engine } = runner.running;
    const operators = await graphOf(() => engine.call(engine.operator(), 'tasks_run', spec));
    expect(operators).toContain(runner.token);
  });
});

describe('without a sandbox', () => {
  it('says why, plainly, with what to do', () => {
    const none = detectSandbox({ ...process.env, PATH: '/nonexistent' }, 'linux');
    expect(none).toEqual({ kind: 'none', reason: expect.stringMatching(/bubblewrap is not installed.*apt-get install bubblewrap/) });
    expect(detectSandbox({ ...process.env, COMMONROOM_SANDBOX: 'off' })).toMatchObject({ kind: 'none', reason: expect.stringMatching(/COMMONROOM_SANDBOX=off/) });
    expect(detectSandbox(process.env, 'win32')).toMatchObject({ kind: 'none', reason: expect.stringMatching(/Windows/) });
  });
});

