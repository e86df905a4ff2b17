import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script (no types); checked here through its behaviour
import { checkImports, checkInnerLayers, describe as describeProblems } from '../../scripts/check-imports.mjs';
import { REPO } from '../helpers/env';

interface Result {
  files: number;
  cycles: string[][];
  upward: { from: string; to: string; fromLayer: string; toLayer: string }[];
  unknownFolders: string[];
}
const check = checkImports as (root: string) => Result;
interface Inner {
  inward: { from: string; to: string; fromFolder: string; toFolder: string }[];
  pastFace: { from: string; to: string; fromFolder: string; toFolder: string }[];
  loose: string[];
  unknownInner: string[];
}
const checkInner = checkInnerLayers as (root: string, inner?: unknown, rootFiles?: unknown, faces?: Record<string, string[]>) => Inner;
const problemsOf = (r: Inner) => describeProblems({ cycles: [], upward: [], unknownFolders: [], ...r }) as string[];

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-check-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** Writes a small src-main-like tree: path → source. */
function tree(files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
}

describe('scripts/check-imports.mjs', () => {
  it('the real src-main has no import cycle and no import up a layer', () => {
    const result = check(path.join(REPO, 'src-main'));
    expect(result.files).toBeGreaterThan(50);
    expect(describeProblems(result)).toEqual([]);
  });

  it('a clean layered tree passes: each layer imports only lower ones', () => {
    tree({
      'common/a.ts': 'export const a = 1;',
      'engine/e.ts': "import { a } from '../common/a';\nexport const e = a;",
      'mcp/m.ts': "import { e } from '../engine/e';\nexport const m = e;",
      'server/s.ts': "import { m } from '../mcp/m';\nimport { a } from '../common/a';\nexport const s = m + a;",
      'cli/c.ts': "import { s } from '../server/s';\nexport const c = s;",
    });
    const result = check(root);
    expect(result.files).toBe(5);
    expect(describeProblems(result)).toEqual([]);
  });

  it('finds a cycle, type-only imports and index files included', () => {
    tree({
      'engine/a.ts': "import type { B } from './b';\nexport type A = B;",
      'engine/b.ts': "import { c } from './c/index';\nexport type B = typeof c;",
      'engine/c/index.ts': "export { type A } from '../a';\nexport const c = 1;",
      'engine/d.ts': "// import { a } from './a' is only a comment\nexport const d = 1;",
    });
    const result = check(root);
    expect(result.cycles).toEqual([['engine/a.ts', 'engine/b.ts', 'engine/c/index.ts']]);
    expect(describeProblems(result)[0]).toMatch(/^import cycle: engine\/a\.ts → engine\/b\.ts → engine\/c\/index\.ts$/);
  });

  it('finds an import that runs up a layer, and one sideways between two doors', () => {
    tree({
      'engine/e.ts': "import { m } from '../mcp/m';\nexport const e = m;",
      'mcp/m.ts': "export const m = await import('../api/h');",
      'api/h.ts': 'export const h = 1;',
      'common/x.ts': "export * from '../net/n';",
      'net/n.ts': 'export const n = 1;',
    });
    const result = check(root);
    expect(result.upward).toEqual(
      expect.arrayContaining([
        { from: 'engine/e.ts', to: 'mcp/m.ts', fromLayer: 'engine', toLayer: 'mcp' },
        { from: 'mcp/m.ts', to: 'api/h.ts', fromLayer: 'mcp', toLayer: 'api' },
        { from: 'common/x.ts', to: 'net/n.ts', fromLayer: 'common', toLayer: 'net' },
      ]),
    );
    expect(result.upward).toHaveLength(3);
  });

  it('names a folder that is in no layer instead of passing over it', () => {
    tree({ 'widgets/w.ts': 'export const w = 1;' });
    expect(describeProblems(check(root))).toEqual([expect.stringMatching(/src-main\/widgets\/ is in no layer/)]);
  });

  it('exits non-zero with the problems when run as a script', async () => {
    tree({ 'engine/e.ts': "import { c } from '../cli/c';\nexport const e = c;", 'cli/c.ts': 'export const c = 1;' });
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [path.join(REPO, 'scripts/check-imports.mjs'), root], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/engine\/e\.ts imports cli\/c\.ts: engine\/ may not import cli\//);
  });
});

describe('scripts/check-imports.mjs inside engine/ and mcp/ (INNER_LAYERS, ROOT_FILES, FACES)', () => {
  it('the real engine/ and mcp/ keep their declared order, their root files and their faces', () => {
    expect(problemsOf(checkInner(path.join(REPO, 'src-main')))).toEqual([]);
  });

  it('a sub-folder importing one above it, one of its rank, or a root file is refused', () => {
    tree({
      'engine/core/ids.ts': "import { Room } from '../room/room';\nexport const ids = Room;",
      'engine/room/room.ts': "import { ids } from '../core/ids';\nexport const Room = 1;",
      'engine/shells/s.ts': "import { w } from '../workspaces/w';\nexport const s = w;",
      'engine/workspaces/w.ts': 'export const w = 1;',
      'engine/people/p.ts': "import type { Engine } from '../engine';\nexport type P = Engine;",
      'engine/engine.ts': "import { Room } from './room/room';\nexport type Engine = typeof Room;",
      'mcp/transport/t.ts': "import { tools } from '../surface/tools';\nexport const t = tools;",
      'mcp/surface/tools.ts': 'export const tools = 1;',
    });
    const result = checkInner(root);
    expect(result.inward).toEqual(
      expect.arrayContaining([
        { from: 'engine/core/ids.ts', to: 'engine/room/room.ts', fromFolder: 'engine/core', toFolder: 'engine/room' },
        { from: 'engine/shells/s.ts', to: 'engine/workspaces/w.ts', fromFolder: 'engine/shells', toFolder: 'engine/workspaces' },
        { from: 'engine/people/p.ts', to: 'engine/engine.ts', fromFolder: 'engine/people', toFolder: 'engine' },
        { from: 'mcp/transport/t.ts', to: 'mcp/surface/tools.ts', fromFolder: 'mcp/transport', toFolder: 'mcp/surface' },
      ]),
    );
    expect(result.inward).toHaveLength(4);
    expect(problemsOf(result)[0]).toMatch(/^engine\/core\/ids\.ts imports engine\/room\/room\.ts: engine\/core\/ may not import engine\/room\//);
  });

  it('names a loose file at the root and a sub-folder in no rank', () => {
    tree({ 'engine/helpers.ts': 'export const h = 1;', 'engine/widgets/w.ts': 'export const w = 1;', 'engine/index.ts': 'export const i = 1;' });
    expect(problemsOf(checkInner(root))).toEqual([
      'src-main/engine/helpers.ts is a loose file: move it into a sub-folder (ROOT_FILES lists the ones a root may hold)',
      'src-main/engine/widgets/ is in no rank: add it to INNER_LAYERS in scripts/check-imports.mjs',
    ]);
  });

  it('a feature with a face is imported through its index.ts only, by siblings and by the root files', () => {
    tree({
      'engine/room/index.ts': "export { Room } from './room';",
      'engine/room/room.ts': 'export const Room = 1;',
      'engine/people/ok.ts': "import { Room } from '../room';\nexport const ok = Room;",
      'engine/people/past.ts': "import { Room } from '../room/room';\nexport const past = Room;",
      'engine/engine.ts': "import { Room } from './room/room';\nexport const e = Room;",
    });
    const result = checkInner(root, undefined, undefined, { engine: ['room'] });
    expect(result.pastFace).toEqual([
      { from: 'engine/people/past.ts', to: 'engine/room/room.ts', fromFolder: 'engine/people', toFolder: 'engine/room' },
      { from: 'engine/engine.ts', to: 'engine/room/room.ts', fromFolder: 'engine', toFolder: 'engine/room' },
    ]);
    expect(problemsOf(result)[0]).toMatch(/engine\/room\/ is met through its face, engine\/room\/index\.ts$/);
  });

  it('the script fails on a deliberate violation of the order inside the engine', async () => {
    tree({ 'engine/core/c.ts': "import { a } from '../agents/a';\nexport const c = a;", 'engine/agents/a.ts': 'export const a = 1;' });
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [path.join(REPO, 'scripts/check-imports.mjs'), root], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/engine\/core\/c\.ts imports engine\/agents\/a\.ts: engine\/core\/ may not import engine\/agents\//);
  });
});
