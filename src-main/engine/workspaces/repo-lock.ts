import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RoomError } from '../../common/errors';
import { isAlive, processStartTime } from '../process/process-tree';
import { gitRead } from './git';

/** Who holds a repository's lock file: a runner process (its start time tells a recycled pid apart). */
interface Holder {
  pid: number;
  startTime: string | null;
  room: string;
  what: string;
  at: string;
}

/** The lock file's folder: in the runner's data folder (shared by every room of this user, written by no agent). */
const lockFolder = (dataDir: string) => path.join(dataDir, 'repo-locks');

/** The repository's git folder every worktree shares: two rooms merging into one repository meet there. */
async function commonDir(repo: string): Promise<string> {
  // a repository's top with its own .git folder (not a linked worktree's pointer): that folder, without asking git
  const own = path.join(repo, '.git');
  try {
    if (fs.lstatSync(own).isDirectory() && !fs.existsSync(path.join(own, 'commondir'))) return fs.realpathSync(own);
  } catch {
    // not that: git says
  }
  const out = await gitRead(repo, ['rev-parse', '--git-common-dir']);
  const dir = out.status === 0 ? path.resolve(repo, out.stdout.trim()) : repo;
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

const holderAlive = (h: Holder): boolean => (h.startTime === null ? isAlive(h.pid) : isAlive({ pid: h.pid, startTime: h.startTime }));

/**
 * Serialises the room's steps on one repository (a merge that moves a branch and updates its checkout, an accept
 * that makes a worktree): in this process a queue per repository, so a second approval waits for the first and
 * is then judged on what the first left; across processes (two rooms on one repository) a lock file named by
 * the repository's git folder, made with O_EXCL, holding the runner's pid and start time. A lock whose holder is
 * gone (a crash) is taken over; one held by a live runner is a refusal naming it.
 */
/** The queue per repository (its git folder): one per process, whatever rooms it runs. */
const queues = new Map<string, Promise<unknown>>();
/** The look-ups of queues, one after another (see RepoLocks.with). */
let ordering: Promise<void> = Promise.resolve();

export class RepoLocks {

  constructor(
    private readonly dataDir: string,
    private readonly room: string,
  ) {}

  /** Runs `fn` holding `repo`'s lock; steps asked for in one process run in the order they were asked for. */
  async with<T>(repo: string, what: string, fn: () => Promise<T>): Promise<T> {
    // the queue is found by the repository's git folder (a git call): those look-ups go one at a time, so a
    // step asked for first is queued first
    const turn = ordering.then(async () => {
      const key = await commonDir(repo);
      const before = queues.get(key) ?? Promise.resolve();
      const run = before
        .catch(() => undefined)
        .then(async () => {
          const file = this.take(key, repo, what);
          try {
            return await fn();
          } finally {
            fs.rmSync(file, { force: true });
          }
        });
      const tail = run.catch(() => undefined);
      queues.set(key, tail);
      void tail.then(() => {
        if (queues.get(key) === tail) queues.delete(key);
      });
      return { run };
    });
    ordering = turn.then(
      () => undefined,
      () => undefined,
    );
    return (await turn).run;
  }

  private take(key: string, repo: string, what: string): string {
    const folder = lockFolder(this.dataDir);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, `${crypto.createHash('sha256').update(key).digest('hex').slice(0, 32)}.lock`);
    const me: Holder = { pid: process.pid, startTime: processStartTime(process.pid), room: this.room, what, at: new Date().toISOString() };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
        fs.writeSync(fd, JSON.stringify(me));
        fs.closeSync(fd);
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let held: Holder | null = null;
      try {
        held = JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
      } catch {
        held = null; // half-written by a holder that died at once: stale
      }
      if (held && holderAlive(held)) {
        throw new RoomError('CONFLICT', `${held.room === this.room ? 'this room' : `another room (${held.room})`} is already working on the repository ${repo} (${held.what}, since ${held.at}; runner pid ${held.pid}): nothing was changed; try again once it finished`);
      }
      fs.rmSync(file, { force: true });
    }
    throw new RoomError('CONFLICT', `the repository ${repo} stayed locked by runners that ended (${file}): try again`);
  }
}
