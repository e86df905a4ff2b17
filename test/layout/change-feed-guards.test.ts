import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Guards for two rules the code cannot show by itself:
 * - live updates come from one change feed (committed events on the bus, and in-process "grew" signals for
 *   volatile output), never from a timer that re-reads state: no setInterval/setTimeout in the doors or in the
 *   feed's engine parts except the few listed here, each with why it is not polling;
 * - task rows are written only by the task layer (engine/tasks/task-service.ts).
 */
const ROOT = path.resolve(__dirname, '../../src-main');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Where live updates are served or produced. */
const FEED_PLACES = ['mcp', 'server', 'bridge', 'net', 'engine/tasks', 'engine/core/event-bus.ts', 'engine/core/growth-signal.ts', 'engine/graphs/graphs-feature.ts', 'engine/handoffs/handoffs-feature.ts'];

/** The timers allowed there: file, the exact code, and why it is not a poll. Anything else fails. */
const ALLOWED: { file: string; code: string; why: string }[] = [
  { file: 'mcp/eras/listen-2026.ts', code: "setInterval(() => !closed && res.write(': keepalive\\n\\n'), KEEPALIVE_MS)", why: 'an SSE keepalive comment: writes, never reads state' },
  { file: 'mcp/eras/sessions-2025.ts', code: 'setTimeout(r, graceMs)', why: "how long a revoked participant's calls have to write their answers: a deadline" },
  { file: 'mcp/eras/sessions-2025.ts', code: 'setInterval(() => this.expireIdle(), Math.min(60_000, Math.max(1_000, limits.idleMs / 4)))', why: 'idle session expiry' },
  { file: 'engine/core/event-bus.ts', code: 'setTimeout(done, waitMs)', why: "a long-poll's deadline (tasks_status, handoff_get)" },
  { file: 'engine/handoffs/handoffs-feature.ts', code: 'setInterval(() => {\n        try {\n          sweepHandoffTasks', why: 'the TTL sweeper: expires tasks past their time, housekeeping' },
  { file: 'engine/graphs/graphs-feature.ts', code: 'setInterval(expired, Math.min(limits.graphLogRetentionMs, 60_000))', why: 'log retention housekeeping, not a live update' },
  { file: 'server/request-guards.ts', code: 'setTimeout(() => stop(new BodyTooSlow()), timeoutMs)', why: "a request body's deadline" },
  { file: 'server/request-guards.ts', code: 'setTimeout(() => this.destroy(), LINGER_MS)', why: 'how long a refused client may go on sending: a deadline' },
  { file: 'server/request-guards.ts', code: 'setTimeout(() => {\n      if (this.unauth.has(socket)) socket.destroy();', why: 'how long a socket may stay without a valid token: a deadline' },
  { file: 'bridge/ui-shell-stream.ts', code: 'setTimeout(() => this.flush(), this.frameMs)', why: 'batches shell bytes into frames: armed by output, never reads state' },
  { file: 'server/room-node.ts', code: "setInterval(() => {\n    void engine.call(engine.operator(), 'shell_list', {})", why: "a room node's idle exit (no connection, no live shell for 10 minutes): housekeeping, never an update" },
  { file: 'bridge/ui-shell-stream.ts', code: 'setTimeout(() => this.dropIdleSpares(), ms)', why: "lets a quiet stream's spare frame buffers go: housekeeping, never reads state" },
  { file: 'server/idle-collect.ts', code: 'setInterval(() => {\n      if (collecting || !decide.check(sample())) return;', why: "the room's idle collection: looks at its own CPU time and heap, never at the room's state" },
  { file: 'server/node-streams.ts', code: 'setTimeout(() => streams.get(shellId) === s && stop(shellId), KEEP_MS)', why: "how long a node keeps a stream whose link dropped, for the room to resume: a deadline" },
  { file: 'server/node-streams.ts', code: 'setInterval(() => (Date.now() - since < HOLD_MS ? s.attachment.ack(0) : clearInterval(s.holding)), 500)', why: "keeps the host's program held (nothing dropped) for HOLD_MS after the link drops: a keepalive of the hold, never reads state" },
];

const TIMER = /\b(setInterval|setTimeout)\s*\(|timers\/promises/g;

describe('one change feed', () => {
  it('no timer-driven polling in the doors or the feed: every timer there is a listed deadline, keepalive or housekeeping', () => {
    const files = FEED_PLACES.flatMap((p) => {
      const full = path.join(ROOT, p);
      return fs.statSync(full).isDirectory() ? sourceFiles(full) : [full];
    });
    expect(files.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const file of files) {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(TIMER)) {
        const allowed = ALLOWED.some((a) => a.file === rel && text.slice(m.index, m.index + a.code.length) === a.code);
        if (!allowed) found.push(`${rel}: ${text.slice(m.index, text.indexOf('\n', m.index)).trim()}`);
      }
    }
    expect(found, 'a timer that is not on the allow-list: follow the bus or a grew signal instead of polling').toEqual([]);
  });

  it('the allow-list names only timers that still exist (a stale entry would hide nothing but mislead)', () => {
    for (const a of ALLOWED) expect(fs.readFileSync(path.join(ROOT, a.file), 'utf8'), `${a.file} (${a.why})`).toContain(a.code);
  });

  it('nothing but the task layer writes task rows', () => {
    const writers = sourceFiles(ROOT)
      .filter((f) => /\.(insertRow|updateRow|deleteRow)\(/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
    expect(writers).toEqual(['engine/tasks/task-service.ts']);
  });

  it('TaskRepo announces nothing: committed events are the only change signal', () => {
    expect(fs.readFileSync(path.join(ROOT, 'engine/store/tasks.ts'), 'utf8')).not.toMatch(/onChange|queueMicrotask/);
  });
});
