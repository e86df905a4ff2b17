import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

// The latest table in BENCHMARKS.md, which `npm run bench` rewrites between its markers (bench/lib/table.js):
// a run replaces its own benchmarks' rows and nothing else; a smoke run leaves the real table alone.
interface Row { name: string; ours: string; baseline: string; ratio: string; goal: string; met: boolean | null; floor?: number }
interface Table {
  BEGIN: string;
  END: string;
  replaceTable(text: string, ran: { name: string; rows: Row[] }[], when: string, failed?: { name: string; error: string }[]): string;
}
const { BEGIN, END, replaceTable } = (await import(pathToFileURL(path.join(REPO, 'bench/lib/table.js')).href)) as Table;

const row = (name: string, ours: string, extra: Partial<Row> = {}): Row => ({ name, ours, baseline: 'b', ratio: '1.00×', goal: 'g', met: true, ...extra });
const HEADER = '| benchmark | ours | baseline | ratio | goal | met? | run at |\n| --- | --- | --- | --- | --- | --- | --- |';
const BEFORE = '# Benchmarks\n\nHow each figure is made | with a pipe.\n\n';
const AFTER = '\n\nNotes after the table, kept as they are.\n';
const file = (rows: string[]) => `${BEFORE}${BEGIN}\n${HEADER}\n${rows.join('\n')}\n${END}${AFTER}`;
const OLD = [
  '| mcp-call 2025 room_info ×1 | 483/s | 282/s | 1.72× | ≥ 0.9× | yes | 2026-12-02T16:35Z |',
  '| mcp-call 2025 room_info ×8 | 1404/s | 1176/s | 1.19× | ≥ 0.9× | yes | 2026-12-02T16:35Z |',
  '| graph wide 256 | 386 stages/s | loop 919/s | 2.4× | ≤ 1.3× | no (its floor: 1.87×) | 2026-12-02T16:35Z |',
  '| startup empty room | 216.5 ms | 225.3 ms | 0.96× | ≤ 1.1× | yes | 2026-12-02T16:35Z |',
];

describe('the latest table between the markers', () => {
  it('replaces the rows of the benchmarks that ran, in their place, and keeps everything else byte for byte', () => {
    const text = replaceTable(file(OLD), [{ name: 'mcp-call', rows: [row('mcp-call 2026 room_info ×1', '421/s')] }], '2026-12-04T05:00Z');
    expect(text).toBe(file(['| mcp-call 2026 room_info ×1 | 421/s | b | 1.00× | g | yes | 2026-12-04T05:00Z |', OLD[2] as string, OLD[3] as string]));
  });

  it('replaces a row named as one the run measured, though its name does not start with its benchmark name', () => {
    const stale = '| task start (agent_start) | 153.1 ms | 41.3 ms | 3.71× | ≤ 1.3× | no | 2026-12-05T05:18Z |';
    const text = replaceTable(file([...OLD, stale]), [{ name: 'task-start', rows: [row('task start (agent_start)', '1317.8 ms')] }], '2026-12-05T06:52Z');
    expect(text).toBe(file([...OLD, '| task start (agent_start) | 1317.8 ms | b | 1.00× | g | yes | 2026-12-05T06:52Z |']));
  });

  it('adds a benchmark it has not seen after the others, and says where a row is short of its goal and floor', () => {
    const ran = [{ name: 'lockout', rows: [row('lockout other-agent call', '1.28 ms | p99 8 ms', { met: false, floor: 1.5 }), row('lockout n/a row', '-', { met: null })] }];
    const text = replaceTable(file(OLD), ran, '2026-12-04T05:00Z');
    expect(text).toBe(file([...OLD, '| lockout other-agent call | 1.28 ms \\| p99 8 ms | b | 1.00× | g | no (its floor: 1.50×) | 2026-12-04T05:00Z |', '| lockout n/a row | - | b | 1.00× | g | n/a | 2026-12-04T05:00Z |']));
  });

  it('marks every row of a failed benchmark failed on that date, with its goal and the error, and keeps none of its old figures', () => {
    const error = 'Error: connection refused: this participant holds 32 connections\n    at stack line';
    const text = replaceTable(file(OLD), [], '2026-12-05T03:30Z', [{ name: 'mcp-call', error }]);
    expect(text).toBe(
      file([
        '| mcp-call 2025 room_info ×1 | FAILED: Error: connection refused: this participant holds 32 connections |  |  | ≥ 0.9× | no (failed) | 2026-12-05T03:30Z |',
        '| mcp-call 2025 room_info ×8 | FAILED: Error: connection refused: this participant holds 32 connections |  |  | ≥ 0.9× | no (failed) | 2026-12-05T03:30Z |',
        OLD[2] as string,
        OLD[3] as string,
      ]),
    );
    expect(text).not.toContain('483/s');
    // a benchmark that failed before it ever had rows gets one row saying so
    const fresh = replaceTable(file(OLD), [], '2026-12-05T03:30Z', [{ name: 'lists', error: 'boom' }]);
    expect(fresh).toBe(file([...OLD, '| lists | FAILED: boom |  |  |  | no (failed) | 2026-12-05T03:30Z |']));
  });

  it('leaves the table as it was when nothing ran, and refuses a file without its markers', () => {
    expect(replaceTable(file(OLD), [], 'now')).toBe(file(OLD));
    expect(() => replaceTable('# Benchmarks\n| a | b |\n', [], 'now')).toThrow(/markers/);
  });

  it('BENCHMARKS.md has the markers and every benchmark of the suite has rows there', () => {
    const text = fs.readFileSync(path.join(REPO, 'BENCHMARKS.md'), 'utf8');
    const table = text.slice(text.indexOf(BEGIN), text.indexOf(END));
    expect(table).toContain(HEADER);
    expect(replaceTable(text, [], 'now')).toBe(text);
    for (const name of ['mcp-call', 'shell-roundtrip', 'shell-stream', 'graph', 'handoff-cycle', 'fanout', 'startup', 'ui', 'lockout', 'answer-bytes', 'many-shells', 'workspace', 'handoff-list']) {
      expect(table).toContain(`| ${name} `);
    }
  });
});

describe('npm run bench writes the table', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-bench-table-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bench = (...args: string[]) => spawnSync(process.execPath, [path.join(REPO, 'bench/run.js'), 'shell-roundtrip', '--smoke', '--out', path.join(dir, 'out.json'), ...args], { encoding: 'utf8', timeout: 120_000 });
  const digest = () => crypto.createHash('sha256').update(fs.readFileSync(path.join(REPO, 'BENCHMARKS.md'))).digest('hex');

  it('a smoke run writes no table unless told where, and then only its own rows', () => {
    const before = digest();
    const plain = bench();
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('table:');
    expect(digest()).toBe(before);

    const table = path.join(dir, 'table.md');
    fs.writeFileSync(table, file(OLD));
    const told = bench('--table', table);
    expect(told.status, told.stderr).toBe(0);
    expect(told.stdout).toContain('table: ');
    const text = fs.readFileSync(table, 'utf8');
    expect(text.startsWith(`${BEFORE}${BEGIN}\n${HEADER}\n${OLD.join('\n')}\n| shell-roundtrip echo tok → match |`)).toBe(true);
    expect(text.endsWith(`${END}${AFTER}`)).toBe(true);
    expect(digest()).toBe(before);
  }, 240_000);

  it('a failed benchmark makes the run exit non-zero and marks its rows failed in the table', () => {
    const table = path.join(dir, 'failed.md');
    const old = ['| shell-roundtrip echo tok → match | p50 1.92 ms | p50 0.08 ms | 1.11× | p50 ≤ 5 ms | yes | 2026-12-02T16:35Z |', OLD[3] as string];
    fs.writeFileSync(table, file(old));
    const run = spawnSync(process.execPath, [path.join(REPO, 'bench/run.js'), 'shell-roundtrip', '--smoke', '--out', path.join(dir, 'failed.json'), '--table', table], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, BENCH_FAIL: 'shell-roundtrip' },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('shell-roundtrip marked failed');
    const text = fs.readFileSync(table, 'utf8');
    expect(text).toMatch(/\| shell-roundtrip echo tok → match \| FAILED: Error: shell-roundtrip failed on purpose \(BENCH_FAIL\) \| {2}\| {2}\| p50 ≤ 5 ms \| no \(failed\) \| \d{4}-\d\d-\d\dT\d\d:\d\dZ \|/);
    expect(text).not.toContain('p50 1.92 ms');
    expect(text).toContain(OLD[3] as string);
  }, 120_000);
});
