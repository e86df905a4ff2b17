import fs from 'node:fs';
import path from 'node:path';
import { init, parse } from 'es-module-lexer';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

/**
 * Every module a built entry loads, following its relative imports, with the bare specifiers each one names.
 * Imports are read by a module lexer, not a pattern: bundled packages carry `import('./x')` in their doc comments.
 */
function importGraph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const source = fs.readFileSync(file, 'utf8');
    const [imports] = parse(source, file);
    const specifiers = imports.map((i) => i.n).filter((n): n is string => n !== undefined);
    // a bundled CommonJS package loads its externals with require (a name in a comment counts too: a false alarm, never a miss)
    const required = [...source.matchAll(/\brequire\(\s*["']([^"'.][^"']*)["']\s*\)/g)].map((m) => m[1] as string);
    seen.set(file, [...specifiers.filter((s) => !s.startsWith('.')), ...required]);
    for (const s of specifiers.filter((x) => x.startsWith('.'))) visit(path.resolve(path.dirname(file), s));
  };
  visit(entry);
  return seen;
}

const built = (name: string) => path.join(REPO, 'out/main', name);

describe('layer boundaries in the build', () => {
  beforeAll(() => init);
  it('the headless entry (commonroom serve) and ce import no electron, directly or through a chunk', () => {
    for (const entry of ['commonroom.js', 'ce.js']) {
      const graph = importGraph(built(entry));
      expect(graph.size).toBeGreaterThan(1);
      const electronUsers = [...graph].filter(([, bare]) => bare.includes('electron')).map(([f]) => f);
      expect(electronUsers, entry).toEqual([]);
    }
  });

  it('the MCP SDK and zod are bundled into the entries, one copy for all (an external copy beside it would break its instanceof checks)', () => {
    for (const entry of ['commonroom.js', 'ce.js', 'app.js', 'test-fixtures.js']) {
      const external = [...importGraph(built(entry)).values()].flat().filter((s) => /^(@modelcontextprotocol\/|zod(\/|$))/.test(s));
      expect(external, entry).toEqual([]);
    }
  });

  it('the Electron entry does import electron (so the check above can see it)', () => {
    const graph = importGraph(built('app.js'));
    expect([...graph.values()].some((bare) => bare.includes('electron'))).toBe(true);
  });

  it('the production entries carry no test fixture: those are only in test-fixtures.js, loaded by serve --test-fixtures', () => {
    for (const entry of ['commonroom.js', 'ce.js', 'app.js']) {
      const modules = [...importGraph(built(entry)).keys()];
      const withFixtures = modules.filter((file) => /protocol_error_job|test_reconnection|confirm_delete/.test(fs.readFileSync(file, 'utf8')));
      expect(withFixtures, entry).toEqual([]);
    }
    expect(fs.readFileSync(built('test-fixtures.js'), 'utf8')).toMatch(/protocol_error_job/);
  });

  it('the preload is CommonJS, as a sandboxed preload must be', () => {
    const preload = fs.readFileSync(path.join(REPO, 'out/preload/preload.cjs'), 'utf8');
    expect(preload).toMatch(/require\(["']electron["']\)/);
    expect(preload).not.toMatch(/^\s*import\s/m);
  });
});
