import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script (no types); checked here through its behaviour
import { checkImports, describe as describeProblems } from '../../scripts/check-imports.mjs';
import { REPO } from '../helpers/env';

interface Result {
  files: number;
  cycles: string[][];
  upward: { from: string; to: string; fromLayer: string; toLayer: string }[];
  unknownFolders: string[];
}
const check = checkImports as (root: string) => Result;

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
