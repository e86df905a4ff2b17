import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

// Every benchmark of `npm run bench`, at tiny sizes, so none of them rots: each must run against the built
// room process and produce its rows. No figure is asserted (timing belongs in the benchmarks themselves).
const BENCHMARKS = ['mcp-call', 'shell-roundtrip', 'shell-stream', 'graph', 'handoff-cycle', 'fanout', 'startup', 'ui', 'lockout', 'many-shells', 'workspace', 'handoff-list', 'remote'];
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-bench-smoke-'));
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

interface Results {
  smoke: boolean;
  machineAtStart: { cpu: string; cores: number; memoryMiB: number; node: string };
  table: string;
  benchmarks: { name: string; error?: string; rows: { name: string; ours: string; goal: string }[] }[];
}

describe('npm run bench -- --smoke', () => {
  it.each(BENCHMARKS)('%s runs and produces its rows', (name) => {
    const out = path.join(outDir, `${name}.json`);
    const r = spawnSync(process.execPath, [path.join(REPO, 'bench/run.js'), name, '--smoke', '--out', out], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const results = JSON.parse(fs.readFileSync(out, 'utf8')) as Results;
    expect(results.smoke).toBe(true);
    expect(results.machineAtStart.cores).toBeGreaterThan(0);
    expect(results.machineAtStart.node).toBe(process.version);
    expect(results.benchmarks.map((b) => b.name)).toEqual([name]);
    const [ran] = results.benchmarks;
    expect(ran?.error).toBeUndefined();
    const rows = ran?.rows ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.name.startsWith(name.split('-')[0] ?? name)).toBe(true);
      expect(results.table).toContain(`| ${row.name} |`);
      expect(r.stdout).toContain(`| ${row.name} |`);
    }
  }, 180_000);

  it('refuses an unknown benchmark name and lists the known ones', () => {
    const r = spawnSync(process.execPath, [path.join(REPO, 'bench/run.js'), 'no-such-bench', '--smoke'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown benchmark no-such-bench');
    for (const name of BENCHMARKS) expect(r.stderr).toContain(name);
  });
});
