/**
 * `ce agent start` starts the agent where the person is: without --cwd in the folder ce was run from, a relative
 * --cwd taken from there (the room's own folder is read-only to agents for the default room, so an agent started
 * there had nowhere to write). The real `ce` against a real `commonroom serve`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_CE, makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';

let home: TestHome;
let serve: ServeProcess;
let project: string;
beforeAll(async () => {
  home = makeHome();
  project = path.join(home.root, 'my project');
  fs.mkdirSync(path.join(project, 'sub'), { recursive: true });
  serve = await startServe(home);
}, 60_000);
afterAll(async () => {
  if (serve) await stopServe(serve);
  home?.cleanup();
});

const start = (cwd: string, extra: string[] = []) => {
  const r = spawnSync(process.execPath, [BIN_CE, 'agent', 'start', 'command', ...extra, '--json', '--', '/bin/sh', '-c', 'sleep 30'], { env: home.env, cwd, encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { agent: { cwd: string; shellId: string } }).agent;
};

describe('ce agent start', () => {
  it('without --cwd starts in the folder ce was run from; a relative --cwd is taken from there', () => {
    const here = start(project);
    expect(here.cwd).toBe(project);
    const sub = start(project, ['--cwd', 'sub']);
    expect(sub.cwd).toBe(path.join(project, 'sub'));
    for (const a of [here, sub]) expect(runCe(home, ['agent', 'stop', a.shellId, '--revoke']).status).toBe(0);
  });

  it('--max-cost, --max-tokens, --max-wall and --max-idle start it inside an envelope; a bad limit starts nothing', () => {
    const before = runCe(home, ['participant', 'list', '--json']).stdout;
    const bad = spawnSync(process.execPath, [BIN_CE, 'agent', 'start', 'command', '--max-cost', 'lots', '--', '/bin/sh', '-c', 'sleep 30'], { env: home.env, cwd: project, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--max-cost takes a positive number, not "lots"');
    expect(runCe(home, ['participant', 'list', '--json']).stdout).toBe(before);

    const agent = start(project, ['--max-cost', '0.5', '--max-tokens', '20000', '--max-wall', '3600', '--max-idle', '600']);
    const { envelopes } = JSON.parse(runCe(home, ['spend', '--json']).stdout) as { envelopes: { scope: string; target: string; maxCostMicroUsd: number; maxTokens: number; maxWallMs: number; maxIdleMs: number; state: string }[] };
    expect(envelopes.filter((e) => e.target === agent.shellId)).toEqual([
      expect.objectContaining({ scope: 'agent', target: agent.shellId, maxCostMicroUsd: 500_000, maxTokens: 20_000, maxWallMs: 3_600_000, maxIdleMs: 600_000, state: 'active' }),
    ]);
    expect(runCe(home, ['agent', 'stop', agent.shellId, '--revoke']).status).toBe(0);
  });
});
