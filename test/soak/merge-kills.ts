import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makeHome } from '../helpers/env';
import { git, makeRepo } from '../helpers/git-repo';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';
import http from 'node:http';

/**
 * SIGKILLs of a real `commonroom serve` at random moments of approve-and-merge (a change of `files` files into
 * the person's checkout of main, which holds a change of their own) and of accept (the worktree of a
 * `files`-file repository being made). After each restart the checkout and the room are checked: HEAD at the
 * previous tip or the merged commit and the files exactly that (git status shows only the person's own change),
 * no git lock left anywhere in the repository, no handoff merged but undecided or left unacceptable, and every
 * interrupted step's outcome in the handoff's events. Each violation is counted by kind.
 */
export interface MergeKillTally {
  mergeKills: number;
  acceptKills: number;
  /** How the merges a kill cut ended: not started, undone at restart, finished at restart, done before the kill. */
  merge: { untouched: number; rolledBack: number; finished: number; done: number };
  accept: { untouched: number; cleared: number; done: number };
  files: number;
  violations: Record<string, number>;
  details: string[];
}

type Handoff = { id: string; status: string; decision: { approved: boolean } | null; workspace: { state: string; path: string | null; evidence: { head: string } | null; merge: { commit: string } | null } | null };
type Event = { kind: string; data: Record<string, unknown> };

function violate(t: MergeKillTally, kind: string, detail: string): void {
  t.violations[kind] = (t.violations[kind] ?? 0) + 1;
  if (t.details.length < 20) t.details.push(`${kind}: ${detail}`);
}

/** Every git lock file in the repository's git folder (index.lock, a ref's .lock, a worktree's). */
function gitLocks(repo: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'objects') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.lock')) found.push(path.relative(repo, p));
    }
  };
  walk(path.join(repo, '.git'));
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The operator's REST door (/api/<method>) on a connection of its own: a restarted runner may get the port of
 * the one just killed, and a pooled keep-alive connection to the dead one would fail the call.
 */
function api<T>(mcpUrl: string, token: string, method: string, input: unknown): Promise<T> {
  const url = new URL(`/api/${method}`, mcpUrl);
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, timeout: 120_000, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        try {
          const parsed = JSON.parse(text) as { result?: T; error?: { message: string } };
          if (res.statusCode !== 200 || parsed.result === undefined) reject(new Error(`${method}: ${parsed.error?.message ?? res.statusCode}`));
          else resolve(parsed.result);
        } catch {
          reject(new Error(`${method}: ${res.statusCode} ${text.slice(0, 200)}`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method}: no answer in 120 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

export async function runMergeKills(mergeKills: number, acceptKills: number, fileCount = 3000): Promise<MergeKillTally> {
  const home = makeHome();
  const t: MergeKillTally = { mergeKills: 0, acceptKills: 0, merge: { untouched: 0, rolledBack: 0, finished: 0, done: 0 }, accept: { untouched: 0, cleared: 0, done: 0 }, files: fileCount, violations: {}, details: [] };
  const gen = Object.fromEntries(Array.from({ length: fileCount }, (_, i) => [`gen/${String(Math.floor(i / 100))}/f${i}.txt`, `line ${i}\n`]));
  const repo = makeRepo(path.join(home.root, 'repo'), { 'README.md': '# app\n', '.gitignore': '.env\n', ...gen });
  // no background gc of the harness's own commits (its gc.log.lock would be counted as a lock left behind)
  git(repo, 'config', 'gc.auto', '0');
  fs.writeFileSync(path.join(repo, 'README.md'), '# app (the person is editing this)\n');
  fs.writeFileSync(path.join(repo, '.env'), 'SECRET=mine\n');
  fs.mkdirSync(path.join(home.root, 'work'));
  const markdown = path.join(home.root, 'work', 'room.md');
  let serve: ServeProcess = await startServe(home, ['--room', markdown]);
  const call = <T>(method: string, input: unknown) => api<T>(serve.mcpUrl, serve.token, method, input);
  const worker = (await call<{ token: string }>('participant_add', { name: 'worker', capabilities: ['read', 'write'] })).token;
  /** The agent's calls (accept, complete) with its own token: the operator creates and approves. */
  const work = <T>(method: string, input: unknown) => api<T>(serve.mcpUrl, worker, method, input);
  const restart = async () => {
    serve.proc.kill('SIGKILL');
    await serve.exited;
    serve = await startServe(home, ['--room', markdown]);
  };
  const rows = new Database(`${markdown}.commonroom.db`, { readonly: true, fileMustExist: true });
  const phaseOf = () => (rows.prepare('SELECT phase FROM workspace_intents').get() as { phase: string } | undefined)?.phase ?? null;
  /** Waits until a step's intent is recorded (at `phase`, when given): true; or `until` passes: false. */
  const intentSeen = async (until: number, phase?: string): Promise<boolean> => {
    while (Date.now() < until) {
      const now = phaseOf();
      if (now !== null && (phase === undefined || now === phase)) return true;
      await sleep(phase ? 0 : 1);
    }
    return false;
  };
  const get = async (id: string) => (await call<{ handoff: Handoff }>('handoff_get', { handoffId: id })).handoff;
  const events = async (id: string) => (await call<{ events: Event[] }>('handoff_events', { handoffId: id, limit: 200 })).events;

  /** The checkout holds exactly `head` plus the person's own README.md change; no lock anywhere. */
  const checkCheckout = (round: string, allowed: string[]): string => {
    const head = git(repo, 'rev-parse', 'main');
    if (!allowed.includes(head)) violate(t, 'head', `${round}: main at ${head}, neither ${allowed.join(' nor ')}`);
    const status = git(repo, 'status', '--porcelain', '--untracked-files=all');
    if (status !== 'M README.md') violate(t, 'half-written', `${round}: ${status.split('\n').length} line(s) of status: ${status.slice(0, 200)}`);
    if (fs.readFileSync(path.join(repo, 'README.md'), 'utf8') !== '# app (the person is editing this)\n') violate(t, 'own-change-lost', round);
    if (fs.readFileSync(path.join(repo, '.env'), 'utf8') !== 'SECRET=mine\n') violate(t, 'ignored-overwritten', round);
    const locks = gitLocks(repo);
    if (locks.length > 0) violate(t, 'stale-lock', `${round}: ${locks.join(', ')}`);
    return head;
  };

  /** A handoff worked on: created, accepted, every generated file changed and committed, completed. */
  const worked = async (round: number): Promise<{ id: string; head: string }> => {
    const { handoff } = await call<{ handoff: Handoff }>('handoff_create', { summary: `merge round ${round}`, workspace: { repo } });
    const folder = (await work<{ handoff: Handoff }>('handoff_accept', { handoffId: handoff.id })).handoff.workspace?.path ?? '';
    for (const file of Object.keys(gen)) fs.writeFileSync(path.join(folder, file), `line ${file} round ${round}\n`);
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', `round ${round}`);
    const done = (await work<{ handoff: Handoff }>('handoff_complete', { handoffId: handoff.id, result: 'done' })).handoff;
    return { id: handoff.id, head: done.workspace?.evidence?.head ?? '' };
  };

  try {
    // one merge unkilled, timed: the whole call, and the window its intent is recorded (the checkout being
    // written, the branch moved). Half the kills land anywhere in the call, half in that window.
    const first = await worked(-1);
    let started = Date.now();
    const calibrating = call('handoff_approve', { handoffId: first.id, merge: true });
    await intentSeen(Date.now() + 60_000);
    const windowFrom = Date.now();
    while (phaseOf() !== null) await sleep(2);
    const windowMs = Math.max(5, Date.now() - windowFrom);
    await calibrating;
    const mergeMs = Date.now() - started;
    checkCheckout('calibration', [first.head]);
    for (let round = 0; round < mergeKills; round++) {
      const tip = git(repo, 'rev-parse', 'main');
      const w = await worked(round);
      const answer = call('handoff_approve', { handoffId: w.id, merge: true }).catch(() => null);
      // a third anywhere in the call, a third in the intent's window, a third as the branch is being moved
      if (round % 3 === 0) await sleep(Math.random() * mergeMs);
      else if (round % 3 === 1) {
        if (await intentSeen(Date.now() + mergeMs * 2)) await sleep(Math.random() * windowMs);
      } else await intentSeen(Date.now() + mergeMs * 2, 'ref');
      await restart();
      await answer;
      t.mergeKills++;
      const name = `merge ${round}`;
      const head = checkCheckout(name, [tip, w.head]);
      const h = await get(w.id);
      const recovered = (await events(w.id)).find((e) => e.kind === 'workspace.merge_recovered');
      if (head === w.head) {
        if (h.status !== 'approved' || h.workspace?.merge?.commit !== w.head) violate(t, 'merged-undecided', `${name}: main has it, the handoff is ${h.status}`);
        if (recovered) t.merge.finished++;
        else t.merge.done++;
      } else {
        if (h.status !== 'result_ready') violate(t, 'decided-unmerged', `${name}: ${h.status}`);
        if (recovered) t.merge.rolledBack++;
        else t.merge.untouched++;
        // it can be approved again, and merges
        const again = await call<{ merged?: { commit: string } }>('handoff_approve', { handoffId: w.id, merge: true }).catch((e: Error) => {
          violate(t, 'cannot-merge-again', `${name}: ${e.message}`);
          return null;
        });
        if (again && again.merged?.commit !== w.head) violate(t, 'merged-other', `${name}: ${again.merged?.commit}`);
        checkCheckout(`${name}, approved again`, [w.head]);
      }
      if (recovered && recovered.data.outcome !== (head === w.head ? 'merged' : 'rolled back')) violate(t, 'outcome-recorded-wrong', `${name}: ${String(recovered.data.outcome)}`);
    }

    // accept: timed once (the call, and its intent's window: the worktree being made), then killed at random moments of it
    const { handoff: probe } = await call<{ handoff: Handoff }>('handoff_create', { summary: 'accept timing', workspace: { repo } });
    started = Date.now();
    const accepting = work('handoff_accept', { handoffId: probe.id });
    await intentSeen(Date.now() + 60_000);
    const acceptFrom = Date.now();
    while (phaseOf() !== null) await sleep(2);
    const acceptWindowMs = Math.max(5, Date.now() - acceptFrom);
    await accepting;
    const acceptMs = Date.now() - started;
    for (let round = 0; round < acceptKills; round++) {
      const { handoff } = await call<{ handoff: Handoff }>('handoff_create', { summary: `accept round ${round}`, workspace: { repo } });
      const answer = work('handoff_accept', { handoffId: handoff.id }).catch(() => null);
      if (round % 2 === 0) await sleep(Math.random() * acceptMs);
      else if (await intentSeen(Date.now() + acceptMs * 2)) await sleep(Math.random() * acceptWindowMs);
      await restart();
      await answer;
      t.acceptKills++;
      const name = `accept ${round}`;
      const locks = gitLocks(repo);
      if (locks.length > 0) violate(t, 'stale-lock', `${name}: ${locks.join(', ')}`);
      const h = await get(handoff.id);
      const recovered = (await events(handoff.id)).find((e) => e.kind === 'workspace.accept_recovered');
      if (h.status === 'accepted') {
        if (h.workspace?.state !== 'ready' || !h.workspace.path || !fs.existsSync(h.workspace.path)) violate(t, 'accepted-without-worktree', `${name}: ${JSON.stringify(h.workspace)}`);
        t.accept.done++;
        continue;
      }
      if (recovered) t.accept.cleared++;
      else t.accept.untouched++;
      try {
        const again = (await work<{ handoff: Handoff }>('handoff_accept', { handoffId: handoff.id })).handoff;
        if (again.workspace?.state !== 'ready' || git(again.workspace.path ?? '', 'status', '--porcelain') !== '') violate(t, 'accepted-broken', `${name}: ${JSON.stringify(again.workspace)}`);
      } catch (error) {
        violate(t, 'unacceptable', `${name}: ${(error as Error).message}`);
      }
    }
    if (phaseOf() !== null) violate(t, 'intents-left', 'an intent is still recorded after the last restart');
  } catch (error) {
    // a call that failed outside a kill: what the runner printed says why
    throw new Error(`${(error as Error).stack ?? ''}\n--- commonroom serve printed:\n${serve.output().slice(-4000)}`);
  } finally {
    rows.close();
    await stopServe(serve);
    home.cleanup();
  }
  return t;
}
