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
});
