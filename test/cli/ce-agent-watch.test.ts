/**
 * `ce agent start --on-stall/--on-limit/--stall-minutes`, `ce agent watch`, `ce agent limit` and `ce agent
 * defaults`: the person's policies for stalls and usage limits, set and read through the real `ce` against a
 * real `commonroom serve`.
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
  project = path.join(home.root, 'project');
  fs.mkdirSync(project, { recursive: true });
  serve = await startServe(home);
}, 60_000);
afterAll(async () => {
  if (serve) await stopServe(serve);
  home?.cleanup();
});

const ce = (args: string[]) => spawnSync(process.execPath, [BIN_CE, ...args], { env: home.env, cwd: project, encoding: 'utf8', timeout: 20_000 });

describe('ce agent and the watch of stalls and usage limits', () => {
  it('starts an agent with its policies, changes them, and says the room’s defaults', () => {
    const started = ce(['agent', 'start', 'command', '--on-stall', 'interrupt', '--stall-minutes', '3', '--on-limit', 'resume', '--json', '--', '/bin/sh', '-c', 'sleep 30']);
    expect(started.status, started.stderr).toBe(0);
    const agent = (JSON.parse(started.stdout) as { agent: { shellId: string; watch: unknown } }).agent;
    expect(agent.watch).toMatchObject({ onStall: 'interrupt', stallMs: 180_000, onLimit: 'resume', stalled: null, limited: null, limitedUntil: null });
    const changed = ce(['agent', 'watch', agent.shellId, '--on-stall', 'restart']);
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('stalled after 3 min quiet; on a stall: restart; at a usage limit: resume');
    const limit = ce(['agent', 'limit', agent.shellId, 'cancel']);
    expect(limit.status).not.toBe(0);
    expect(limit.stderr).toContain('is not stopped at a usage limit now');
    expect(ce(['agent', 'limit', agent.shellId, 'later']).stderr).toContain('ACTION is now (type its continue now), at-reset (at its reset time) or cancel');
    expect(ce(['agent', 'start', 'command', '--on-stall', 'nap', '--', '/bin/true']).stderr).toContain('--on-stall is one of tell, interrupt, restart (not "nap")');
    const defaults = ce(['agent', 'defaults']);
    expect(defaults.stdout).toContain('agents started from now on: stalled after 10 min quiet; on a stall: tell; at a usage limit: ask');
    expect(ce(['agent', 'defaults', '--on-limit', 'leave']).stdout).toContain('at a usage limit: leave');
    expect(runCe(home, ['agent', 'stop', agent.shellId, '--revoke']).status).toBe(0);
  });
});
