/**
 * What the docs say of the code, checked where a sentence can be: every source file they name exists, the
 * renderer's screens they list are its feature folders, the features the engine is built of are the ones named,
 * and the numbers they give for the room's limits are limits.ts's. A rename or a new limit that leaves a doc
 * behind fails here instead of misleading the next reader.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src-main/common/limits';
import { REPO } from '../helpers/env';

const DOCS = ['README.md', 'BENCHMARKS.md', 'RELIABILITY.md', ...fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (doc: string) => fs.readFileSync(path.join(REPO, doc), 'utf8');

/** Files a doc may name that are not in a checkout: what a build or a run writes, and the person's own files. */
const NOT_IN_A_CHECKOUT = new Set(['out/main/app.js', 'out/main/test-fixtures.js', 'out/main/bench-entry.js', 'bench/results/latest.json', 'claude_desktop_config.json', 'notes.md', 'rooms/default.md']);

function repoFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', '.git', 'out', 'test-output', '.electron-native'].includes(e.name)) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else out.push(path.relative(REPO, full));
    }
  };
  walk(REPO);
  return out;
}

/** "2,000" or "2000" or "2 MiB" as the docs write them. */
const written = (n: number) => [n.toLocaleString('en-US'), String(n)];

describe('the docs say what the code does', () => {
  it('every source file they name (`engine/room/feature.ts`, `stores/graph-patch.ts`, …) exists', () => {
    const files = repoFiles();
    const missing: string[] = [];
    for (const doc of DOCS) {
      for (const m of read(doc).matchAll(/`([\w./@-]+\.(?:ts|tsx|mjs|js|json|md|yml))`/g)) {
        const ref = m[1] as string;
        if (NOT_IN_A_CHECKOUT.has(ref)) continue;
        if (!files.some((f) => f === ref || f.endsWith(`/${ref}`))) missing.push(`${doc}: ${ref}`);
      }
    }
    expect(missing, 'named in the docs, not in the repository').toEqual([]);
  });

  it("the renderer's screens listed in architecture.md are its feature folders", () => {
    const listed = /per screen under features\/ \(([^)]+)\)/.exec(read('docs/architecture.md'))?.[1]?.split(/,\s*/) ?? [];
    const folders = fs.readdirSync(path.join(REPO, 'src-renderer/src/features'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect([...listed].sort()).toEqual([...folders].sort());
  });

  it("the limits they state are limits.ts's", () => {
    const claims: [string, RegExp, number][] = [
      ['docs/architecture.md', /the ring keeps the newest ([\d,]+)/, LIMITS.eventRingSize],
      ['README.md', /Every event the room keeps \(the newest ([\d,]+)\)/, LIMITS.eventRingSize],
      ['docs/security.md', /keeping the newest ([\d,]+) rows/, LIMITS.auditRingSize],
      ['docs/security.md', /is one of at most (\d+) and is closed after/, LIMITS.maxUnauthenticatedConnections],
      ['docs/security.md', /An agent holds at most (\d+)/, LIMITS.maxConnectionsPerParticipant],
      ['docs/security.md', /leave (\d+) of the \d+ free/, LIMITS.reservedOperatorConnections],
      ['docs/security.md', /leave \d+ of the (\d+) free/, LIMITS.maxConnections],
      ['docs/security.md', /(\d+) of the \d+ shells/, LIMITS.maxShellsPerAgent],
      ['docs/security.md', /\d+ of the (\d+) shells/, LIMITS.maxShells],
      ['docs/security.md', /(\d+) of the \d+ running graphs/, LIMITS.maxActiveGraphsPerAgent],
      ['docs/security.md', /(\d+) of the \d+\s+working tasks/, LIMITS.maxActiveTasksPerAgent],
      ['docs/security.md', /\d+ of the (\d+)\s+working tasks/, LIMITS.maxActiveTasks],
      ['docs/security.md', /\((\d+) in all, \d+ per participant\)/, LIMITS.maxLegacySessions],
      ['docs/security.md', /\(\d+ in all, (\d+) per participant\)/, LIMITS.maxLegacySessionsPerParticipant],
      ['docs/security.md', /JSON nested deeper than (\d+) levels/, LIMITS.maxJsonDepth],
    ];
    const wrong: string[] = [];
    for (const [doc, pattern, value] of claims) {
      const found = pattern.exec(read(doc))?.[1];
      if (found === undefined) wrong.push(`${doc}: no longer says ${pattern} (update this test with the doc)`);
      else if (!written(value).includes(found)) wrong.push(`${doc}: says ${found} for ${pattern}, limits.ts has ${value}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the features listed in buildFeatures are the engine features architecture.md names', () => {
    const engine = fs.readFileSync(path.join(REPO, 'src-main/engine/features.ts'), 'utf8');
    const built = /function buildFeatures[\s\S]*?return \[([\s\S]*?)\];/.exec(engine)?.[1] ?? '';
    const names = [...built.matchAll(/(\w+)Feature\(/g)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThan(5);
    const arch = read('docs/architecture.md');
    for (const name of names) expect(arch, `docs/architecture.md does not mention the ${name} feature`).toMatch(new RegExp(`\\b${name}`, 'i'));
  });
});
