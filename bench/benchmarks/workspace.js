// workspace: a git worktree per handoff, from outside (`commonroom serve`, its HTTP API with the participants'
// tokens), against git alone on the same repository in the same run, alternating rounds:
//  - make: handoff_accept of a handoff created with a workspace (the room makes the worktree on its branch and
//    records it) against `git worktree add -b <branch> <folder> <base>`; its floor: that, plus the accept of a
//    handoff without a workspace (the room's call alone: HTTP, the durable commit, the answer) measured beside;
//  - capture: handoff_complete of a 5,000-line change over 50 files (the room reads its commits, each file's
//    status, counts and patch, and the uncommitted files, and stores them) against `git diff <base> <head>`; its
//    floor: git's diff, status and log side by side, plus the complete of a handoff without a workspace beside;
//  - draw: in Chromium, from clicking a handoff in the inbox until its 5,000-line change (25 files, all open)
//    shows on screen: the file list and the first file's diff (read with handoff_evidence, drawn by
//    @git-diff-view/react, highlighted; files further down are drawn as they are scrolled near), against the
//    same browser painting the same diff text as one plain <pre>.
/* global document, requestAnimationFrame -- the functions passed to page.evaluate run in the browser */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { addParticipant, callApi, makeHome, startRoom } from '../lib/room.js';
import { CHROMIUM, CHROMIUM_FLAGS } from './ui.js';
import { alternate, fmt, fmtMs, median, spreadPct } from '../lib/stats.js';

const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const gitSync = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...IDENTITY } }).trim();
const gitAsync = (cwd, ...args) =>
  new Promise((resolve, reject) => execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 2 ** 20, env: { ...process.env, ...IDENTITY } }, (e, out) => (e ? reject(e) : resolve(out))));

const api = callApi;
/** The racy window of the room's kept config reads (RACY_MS in src-main/engine/workspaces/driver-cache.ts), and a margin. */
const SETTLED_MS = 2_200;

/** A repository of `files` source files, one commit on main. */
function makeRepo(dir, files) {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  gitSync(dir, 'init', '-q', '-b', 'main');
  for (let f = 0; f < files; f++) fs.writeFileSync(path.join(dir, 'src', `m${f}.js`), Array.from({ length: 200 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n');
  gitSync(dir, 'add', '-A');
  gitSync(dir, 'commit', '-q', '-m', 'base');
}

/** In `folder`: rewrites `lines` lines spread over `files` files and commits them. */
function change(folder, lines, files = 50) {
  const per = Math.ceil(lines / files);
  for (let f = 0; f < files; f++) {
    const file = path.join(folder, 'src', `m${f}.js`);
    const rows = fs.readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < per && i < rows.length - 1; i++) rows[i] = `export const v${i} = ${i} * 2; // changed`;
    fs.writeFileSync(file, rows.join('\n'));
  }
  gitSync(folder, 'commit', '-q', '-am', 'change');
}

/** Two handoffs with the same size of change, for the inbox to switch between; the draw timed against a <pre>. */
async function drawRounds(room, lead, dev, repo, rounds, lines) {
  const ids = [];
  let patchText = '';
  for (const summary of ['review A', 'review B']) {
    const { handoff } = await api(room, lead, 'handoff_create', { summary, to: 'dev', workspace: { repo } });
    const accepted = await api(room, dev, 'handoff_accept', { handoffId: handoff.id });
    change(accepted.handoff.workspace.path, lines, 25);
    await api(room, dev, 'handoff_complete', { handoffId: handoff.id, result: 'changed' });
    ids.push(handoff.id);
    if (!patchText) patchText = (await api(room, lead, 'handoff_evidence', { handoffId: handoff.id, limit: 200 })).files.map((f) => f.patch ?? '').join('');
  }
  const uiUrl = /open the UI:\s+(\S+)/.exec(room.output())?.[1];
  if (!uiUrl) throw new Error('the serve banner names no UI address');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(uiUrl);
    await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
    await page.getByRole('button', { name: /Inbox/ }).click();
    const open = async (id) => {
      const t = performance.now();
      await page.locator(`.inbox-item[data-handoff-id="${id}"]`).click();
      await page.waitForFunction(
        (want) => {
          // the screen a person sees: the file list, and the first file's diff drawn (the others are drawn as
          // they are scrolled near)
          const files = document.querySelectorAll(`[data-handoff-id="${want}"] [data-testid="diff-file"]`);
          return files.length === 25 && files[0].querySelectorAll('[data-state="diff"]').length > 0;
        },
        id,
        { timeout: 120_000, polling: 'raf' },
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
      return performance.now() - t;
    };
    await open(ids[0]); // warm-up: the review's code and the highlighter's first use
    const bare = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pre = () =>
      bare.evaluate(
        (text) =>
          new Promise((resolve) => {
            document.body.textContent = '';
            const t = performance.now();
            const el = document.createElement('pre');
            el.textContent = text;
            document.body.append(el);
            requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t)));
          }),
        patchText,
      );
    let k = 0;
    return await alternate(rounds, () => open(ids[++k % 2]), () => pre());
  } finally {
    await browser.close();
  }
}

const timed = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

export default {
  name: 'workspace',
  async run({ smoke, log }) {
    const home = makeHome('workspace');
    const room = await startRoom(home, ['--room', home.roomFile]);
    const repo = path.join(home.root, 'repo');
    makeRepo(repo, 60);
    const made = performance.now();
    const base = gitSync(repo, 'rev-parse', 'HEAD');
    const lead = addParticipant(home, 'lead', 'read,write');
    const dev = addParticipant(home, 'dev', 'read,write');
    const rounds = smoke ? 2 : 10;
    const lines = smoke ? 500 : 5000;
    let n = 0;
    try {
      // warm-up: the first git calls of a process and the room's first handoff path
      for (let i = 0; i < (smoke ? 1 : 3); i++) {
        const { handoff } = await api(room, lead, 'handoff_create', { summary: `warm ${i}`, to: 'dev', workspace: { repo } });
        await api(room, dev, 'handoff_accept', { handoffId: handoff.id });
        await api(room, dev, 'handoff_complete', { handoffId: handoff.id, result: 'warm' });
      }
      // the room keeps its read of a repository's config (the drivers it empties) only once the files read are
      // 2 s old (a change within one tick of file times could go unseen: driver-cache.ts); a person's repository
      // is older than that, this one was made a moment ago
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, made + SETTLED_MS - performance.now())));
      const make = await alternate(
        rounds,
        async () => {
          const { handoff } = await api(room, lead, 'handoff_create', { summary: `make ${n++}`, to: 'dev', workspace: { repo } });
          return timed(() => api(room, dev, 'handoff_accept', { handoffId: handoff.id }));
        },
        async () => {
          const add = await timed(() => gitAsync(repo, 'worktree', 'add', '--quiet', '-b', `bench/${n++}`, '--', path.join(home.root, 'plain', String(n)), base));
          // the floor: the worktree, then what any room adds to it, measured beside: the accept of a handoff
          // without a workspace (the call over HTTP, judged, committed with its fsync, answered)
          const { handoff } = await api(room, lead, 'handoff_create', { summary: `plain ${n++}`, to: 'dev' });
          const call = await timed(() => api(room, dev, 'handoff_accept', { handoffId: handoff.id }));
          await api(room, dev, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
          return { add, floor: add + call };
        },
      );
      const makeFloor = median(make.baseline.map((b) => b.floor));
      make.baseline = make.baseline.map((b) => b.add);
      const capture = await alternate(
        rounds,
        async () => {
          const { handoff } = await api(room, lead, 'handoff_create', { summary: `capture ${n++}`, to: 'dev', workspace: { repo } });
          const accepted = await api(room, dev, 'handoff_accept', { handoffId: handoff.id });
          change(accepted.handoff.workspace.path, lines);
          return timed(() => api(room, dev, 'handoff_complete', { handoffId: handoff.id, result: 'changed' }));
        },
        async () => {
          const folder = path.join(home.root, 'plain', String(n++));
          await gitAsync(repo, 'worktree', 'add', '--quiet', '-b', `bench/${n}`, '--', folder, base);
          change(folder, lines);
          const diff = await timed(() => gitAsync(folder, 'diff', base, 'HEAD'));
          // the floor: what any capture that also reports the commits and the uncommitted files must ask git,
          // side by side from a bare process; then what any room adds, measured beside: the complete of a
          // handoff without a workspace (the call over HTTP, judged, committed with its fsync, answered)
          const asked = await timed(() => Promise.all([gitAsync(folder, 'diff', '--raw', '-z', '-p', base, 'HEAD'), gitAsync(folder, 'status', '--porcelain=v2', '--branch', '-z'), gitAsync(folder, 'log', '--format=%H%x1f%s', `${base}..HEAD`)]));
          const { handoff } = await api(room, lead, 'handoff_create', { summary: `plain ${n++}`, to: 'dev' });
          await api(room, dev, 'handoff_accept', { handoffId: handoff.id });
          const call = await timed(() => api(room, dev, 'handoff_complete', { handoffId: handoff.id, result: 'changed' }));
          return { diff, asked, floor: asked + call };
        },
      );
      const floor = median(capture.baseline.map((b) => b.floor));
      const asked = median(capture.baseline.map((b) => b.asked));
      capture.baseline = capture.baseline.map((b) => b.diff);
      const draw = fs.existsSync(CHROMIUM) ? await drawRounds(room, lead, dev, repo, smoke ? 1 : 4, lines) : null;
      const row = (name, r, goal, limit, floorMs, floorIs) => {
        const ours = median(r.ours);
        const baseline = median(r.baseline);
        log(`${name}: ${fmtMs(ours)} against ${fmtMs(baseline)}${floorMs ? ` (floor ${fmtMs(floorMs)})` : ''}`);
        return {
          name,
          ours: `${fmtMs(ours)} ±${fmt(spreadPct(r.ours), 0)}%`,
          baseline: `${fmtMs(baseline)}${floorMs ? `; floor (${floorIs}) ${fmtMs(floorMs)}, ours ${fmt(ours / floorMs, 2)}× it` : ''}`,
          ratio: `${fmt(ours / baseline, 2)}×`,
          goal,
          met: ours / baseline <= limit,
          ...(floorMs ? { floor: floorMs / baseline } : {}),
        };
      };
      return [
        row('workspace make (handoff_accept)', make, '≤ 1.2× git worktree add', 1.2, makeFloor, 'git worktree add, then an accept without a workspace'),
        row(`workspace capture (${lines}-line change, 50 files)`, capture, '≤ 1.5× git diff', 1.5, floor, `diff, status and log side by side ${fmtMs(asked)}, then a complete without a workspace`),
        draw
          ? { ...row(`workspace review draw (${lines}-line change, 25 files)`, draw, 'none set (reported)', Infinity), met: null }
          : { name: 'workspace review draw', ours: 'not measured', baseline: '', ratio: '', goal: '', met: null, figures: { why: `${CHROMIUM} is missing` } },
      ];
    } finally {
      await room.stop();
      home.cleanup();
    }
  },
};
