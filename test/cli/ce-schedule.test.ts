/**
 * `ce schedule add|list|runs|remove`, the real built CLI: the time zone stated, refusals that say what to fix,
 * and a room process that serves the room is what runs a schedule — a `ce` command that opens the room for a
 * moment (no room process) decides and starts nothing, even with a due time passed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleRunView, ScheduleView } from '../../src-main/common/methods/schedules';
import { makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe } from '../helpers/serve';

const CLOCK = pathToFileURL(path.join(import.meta.dirname, '../engine/schedules/fixtures/fake-clock.mjs')).href;

let home: TestHome;
let graphFile: string;
let clockFile: string;

function setClock(iso: string): void {
  fs.writeFileSync(clockFile, String(Date.parse(iso) - Date.now()));
}

beforeAll(() => {
  home = makeHome();
  clockFile = path.join(home.root, 'clock-offset');
  home.env.NODE_OPTIONS = `${home.env.NODE_OPTIONS ?? ''} --import ${CLOCK}`.trim();
  home.env.FAKE_CLOCK_FILE = clockFile;
  home.env.COMMONROOM_LIMITS = JSON.stringify({ scheduleTickMs: 100 });
  setClock('2030-03-01T07:50:00Z');
  expect(runCe(home, ['init']).status).toBe(0);
  graphFile = path.join(home.root, 'build.json');
  fs.writeFileSync(graphFile, JSON.stringify({ stages: [{ id: 'build', command: ['true'] }, { id: 'test', command: ['true'], dependsOn: ['build'] }] }));
});

afterAll(() => home.cleanup());

describe('ce schedule', () => {
  let id: string;

  it('add states the time zone and the next due time in it; list shows it', () => {
    const added = runCe(home, ['schedule', 'add', 'nightly build', '--cron', '0 9 * * *', '--tz', 'Europe/Paris', '--graph', graphFile]);
    expect(added.status, added.stderr).toBe(0);
    id = /added (sc_\S+):/.exec(added.stdout)?.[1] as string;
    expect(id).toBeTruthy();
    expect(added.stdout).toContain('0 9 * * *  in Europe/Paris; missed while the room is down: run once on start');
    expect(added.stdout).toContain('runs: graph 2 stages (build, test)');
    // 09:00 in Paris is 08:00 UTC in March
    expect(added.stdout).toContain('next: Fri, 1 Mar 2030, 09:00 (Europe/Paris)');
    const list = runCe(home, ['schedule', 'list', '--json']);
    const out = JSON.parse(list.stdout) as { schedules: ScheduleView[]; machineTimeZone: string };
    expect(out.schedules).toHaveLength(1);
    expect(out.schedules[0]).toMatchObject({ id, timeZone: 'Europe/Paris', nextDueAt: '2030-03-01T08:00:00.000Z', catchUp: 'once' });
  });

  it('refuses what cannot work, saying what to fix (exit 1 for the room, 2 for the command line)', () => {
    const bad = (args: string[]) => runCe(home, ['schedule', 'add', 'x', ...args]);
    const fields = bad(['--cron', '0 9 * *', '--graph', graphFile]);
    expect(fields.status).toBe(1);
    expect(fields.stderr).toMatch(/has 4 fields: give five/);
    expect(bad(['--cron', '0 9 * * *', '--tz', 'Paris', '--graph', graphFile]).stderr).toMatch(/"Paris" is not a time zone this machine knows: give an IANA name such as Europe\/Paris/);
    const neither = bad(['--cron', '0 9 * * *']);
    expect(neither.status).toBe(2);
    expect(neither.stderr).toMatch(/--graph FILE.json or --agent CLIENT --task TEXT/);
    expect(bad(['--cron', '0 9 * * *', '--agent', 'codex']).stderr).toMatch(/give --task TEXT/);
    expect(bad(['--cron', '0 9 * * *', '--catch-up', 'later', '--graph', graphFile]).stderr).toMatch(/use "once" .* or "skip"/);
  });

  it('a ce command with no room process starts nothing: the room process that serves it catches up, once', async () => {
    setClock('2030-03-01T09:30:00Z');
    // a due time (08:00 UTC) has passed; ce opens the room as its writer for a moment and must not run it
    expect(runCe(home, ['schedule', 'add', 'other', '--cron', '0 0 1 1 *', '--tz', 'UTC', '--graph', graphFile]).status).toBe(0);
    expect(JSON.parse(runCe(home, ['schedule', 'runs', id, '--json']).stdout).runs).toEqual([]);
    const room = await startServe(home);
    try {
      let runs: ScheduleRunView[] = [];
      const deadline = Date.now() + 20_000;
      while (runs.length === 0 || runs[0]?.outcome === 'starting') {
        if (Date.now() > deadline) throw new Error('the room process never decided the due time');
        await new Promise((r) => setTimeout(r, 100));
        runs = (JSON.parse(runCe(home, ['schedule', 'runs', id, '--json']).stdout) as { runs: ScheduleRunView[] }).runs;
      }
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ dueAt: '2030-03-01T08:00:00.000Z', outcome: 'ran', late: true });
      const text = runCe(home, ['schedule', 'runs', id]).stdout;
      expect(text).toMatch(/Fri, 1 Mar 2030, 09:00 \(Europe\/Paris\)\s+ran late\s+graph gr_/);
      const removed = runCe(home, ['schedule', 'remove', id]);
      expect(removed.stdout).toContain(`removed ${id} (nightly build): nothing more starts on it`);
      expect(runCe(home, ['schedule', 'list']).stdout).not.toContain(id);
      // its records stay readable
      expect(runCe(home, ['schedule', 'runs', id]).stdout).toContain('ran late');
    } finally {
      await stopServe(room);
    }
  });
});
