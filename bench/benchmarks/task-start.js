// task-start: from "start on a task" to the client's first screen showing the task, against starting the same
// client by hand in a folder made with `git worktree add` (issue 45: goal ≤ 1.3×), alternating rounds:
//  - ours: agent_start with task (the person's handoff to a participant made for the run, accepted for it, its
//    worktree made, the client started there in the agent sandbox with the task) until the task's text is on
//    the terminal's screen (shell_io waiting for it on the room's side);
//  - by hand: `git worktree add -b <branch> <folder> <base>`, then the same program spawned in a PTY in that
//    folder with the task in its environment, until its output shows the task.
// The client is a small program that prints its task and waits (what each real CLI does first, without the
// seconds of its own start-up that both sides would share and that would hide the room's part).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import pty from 'node-pty';
import { callApi, makeHome, startRoom } from '../lib/room.js';
import { alternate, fmt, fmtMs, median, spreadPct } from '../lib/stats.js';

const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const gitSync = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...IDENTITY } }).trim();
const gitAsync = (cwd, ...args) => new Promise((resolve, reject) => execFile('git', args, { cwd, env: { ...process.env, ...IDENTITY } }, (e, out) => (e ? reject(e) : resolve(out))));

/** A repository of 200 files, one commit on main (a worktree of it is a real checkout, not an empty folder). */
function makeRepo(dir) {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  gitSync(dir, 'init', '-q', '-b', 'main');
  for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(dir, 'src', `m${f}.js`), Array.from({ length: 100 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n');
  gitSync(dir, 'add', '-A');
  gitSync(dir, 'commit', '-q', '-m', 'base');
}

/** By hand: the worktree, then the client in a PTY there, until its screen shows `mark`. */
function byHand(repo, folder, branch, base, client, mark) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    gitAsync(repo, 'worktree', 'add', '--quiet', '-b', branch, '--', folder, base).then(() => {
      const term = pty.spawn(client, [], { cwd: folder, cols: 120, rows: 40, env: { ...process.env, COMMONROOM_TASK: `${mark}: say hello` } });
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`the client by hand never showed its task: ${seen}`)), 30_000);
      term.onData((d) => {
        seen += d;
        if (!seen.includes(mark)) return;
        const ms = performance.now() - t;
        clearTimeout(timer);
        term.kill();
        resolve(ms);
      });
    }, reject);
  });
}

export default {
  name: 'task-start',
  async run({ smoke, log }) {
    const home = makeHome('task-start');
    const room = await startRoom(home, ['--room', home.roomFile]);
    const op = room.token;
    const repo = path.join(home.root, 'repo');
    makeRepo(repo);
    const base = gitSync(repo, 'rev-parse', 'HEAD');
    // the client: prints its task (from its environment, as any command started on a task gets it) and waits
    const client = path.join(home.root, 'client.sh');
    fs.writeFileSync(client, '#!/bin/sh\nprintf "%s\\n" "$COMMONROOM_TASK" | head -1\nexec sleep 600\n', { mode: 0o755 });
    const rounds = smoke ? 2 : 10;
    let n = 0;
    const ours = async () => {
      const mark = `task-${n++}`;
      const t = performance.now();
      const { agent } = await callApi(room, op, 'agent_start', { client: 'command', command: [client], cwd: repo, task: `${mark}: say hello`, cols: 120, rows: 40 });
      const seen = await callApi(room, op, 'shell_io', { shellId: agent.shellId, cursor: 'start', wait: { until: 'match', pattern: mark, timeoutMs: 30_000 } });
      const ms = performance.now() - t;
      if (seen.wait?.reason !== 'matched') throw new Error(`the agent's screen never showed its task: ${seen.output}`);
      await callApi(room, op, 'agent_stop', { shellId: agent.shellId, revoke: true });
      return ms;
    };
    const hand = () => byHand(repo, path.join(home.root, 'plain', String(n)), `bench/${n}`, base, client, `task-${n++}`);
    try {
      // warm-up: the room's first agent start (the sandbox, the first handoff path) and git's first worktree
      for (let i = 0; i < (smoke ? 1 : 2); i++) {
        await ours();
        await hand();
      }
      const r = await alternate(rounds, ours, hand);
      const a = median(r.ours);
      const b = median(r.baseline);
      log(`task start: ${fmtMs(a)} against ${fmtMs(b)} by hand`);
      return [
        {
          name: 'task start (agent_start with task → its first screen)',
          ours: `${fmtMs(a)} ±${fmt(spreadPct(r.ours), 0)}%`,
          baseline: `${fmtMs(b)} (git worktree add, the same client in a PTY there) ±${fmt(spreadPct(r.baseline), 0)}%`,
          ratio: `${fmt(a / b, 2)}×`,
          goal: '≤ 1.3× by hand',
          met: a / b <= 1.3,
        },
      ];
    } finally {
      await room.stop();
      home.cleanup();
    }
  },
};
