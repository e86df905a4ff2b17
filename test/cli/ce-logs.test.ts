import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN_CE, makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';

let home: TestHome;
let serve: ServeProcess;
beforeEach(async () => {
  home = makeHome();
  serve = await startServe(home);
});
afterEach(async () => {
  await stopServe(serve);
  home.cleanup();
});

/** Runs ce to its end without blocking the test (a follower waits on the room while stages run). */
function ceAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [BIN_CE, ...args], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => proc.on('close', (status) => resolve({ status, stdout, stderr })));
}

async function submit(graph: unknown): Promise<string> {
  const r = await fetch(new URL('/api/tasks_run', serve.mcpUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.token}` },
    body: JSON.stringify(graph),
  });
  return ((await r.json()) as { result: { graphId: string } }).result.graphId;
}

/** A gate the test opens: stage `a` prints, then waits for the file, so the follower must wait for output. */
function graphWithGate(gate: string) {
  return {
    name: 'logs',
    stages: [
      { id: 'a', command: `echo line-1; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo line-2; echo oops >&2` },
      { id: 'b', command: 'echo from-b; exit 3', dependsOn: ['a'] },
    ],
  };
}

describe('ce logs', () => {
  it('--follow prints a stage as it writes, until it ends, and says how to resume from where it stopped', async () => {
    const gate = path.join(home.root, 'gate');
    const graphId = await submit(graphWithGate(gate));
    // --room as given: the resume hint names the same room
    const roomPath = path.join(home.paths.dataDir, 'rooms', 'default.md');
    const followed = ceAsync(['logs', `${graphId}:a`, '--follow', '--room', roomPath]);
    const whole = ceAsync(['logs', graphId, '-f']);
    // both followers must still be waiting: stage a cannot end before the gate opens
    await expect.poll(() => runCe(home, ['graph', graphId, '--stage', 'a']).stdout, { timeout: 20_000 }).toMatch(/^line-1$/m);
    fs.writeFileSync(gate, '');
    const one = await followed;
    expect(one.status, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^line-1\nline-2\n! oops\n/m);
    expect(one.stdout).not.toContain('from-b');
    const cursor = /--cursor ([A-Za-z0-9_-]+)/.exec(one.stderr)?.[1];
    expect(one.stderr).toContain(`ended; read on later with: node ${fs.realpathSync(BIN_CE)} logs ${graphId}:a --room ${roomPath} --follow --cursor ${cursor}`);
    // resuming from that cursor repeats nothing
    const resumed = runCe(home, ['logs', `${graphId}:a`, '--cursor', cursor as string]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('');

    // the whole graph: every stage, each line prefixed with its stage, until the graph ended
    const all = await whole;
    expect(all.status, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^a \| line-1\n/m);
    expect(all.stdout).toMatch(/^a \| line-2\n/m);
    expect(all.stdout).toMatch(/^b \| from-b\n/m);
    expect(runCe(home, ['logs', `${graphId}:nope`]).stderr).toMatch(/has no stage "nope": its stages are a, b/);
  }, 120_000);

  it('ce run --wait shows what the failing stage printed', async () => {
    const gate = path.join(home.root, 'gate');
    fs.writeFileSync(gate, '');
    const file = path.join(home.root, 'g.json');
    fs.writeFileSync(file, JSON.stringify(graphWithGate(gate)));
    const r = runCe(home, ['run', file, '--wait']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/--- stage b failed \(EXIT_NONZERO, exit 3\): its output ---\n(# .*\n)*from-b\n/);
    expect(r.stdout).not.toMatch(/stage a failed/);
    expect(r.stdout).toMatch(/: failed$/m);
    const asJson = JSON.parse(runCe(home, ['run', file, '--wait', '--json']).stdout) as { failures: { stage: string; output: string }[] };
    expect(asJson.failures).toEqual([expect.objectContaining({ stage: 'b', output: expect.stringContaining('from-b') })]);
  }, 120_000);
});
