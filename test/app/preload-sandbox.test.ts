/**
 * The built preload (out/preload/preload.cjs) loads in Electron's sandbox: a sandboxed preload's `require`
 * gives only `electron` and the `events`, `timers` and `url` polyfills (SANDBOXED_PRELOAD_MODULES), and
 * throws "module not found" for anything else, so a bundler that leaves `require("zod")` in the file breaks the
 * window at load. Read from the built file, as Electron reads it. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { init, parse } from 'es-module-lexer';
import { describe, expect, it } from 'vitest';
import { SANDBOXED_PRELOAD_MODULES } from '../../src-main/common/ipc';
import { REPO } from '../helpers/env';

const PRELOAD = path.join(REPO, 'out/preload/preload.cjs');

/** Every module a CommonJS file asks for: `require("x")` calls, and any `import(...)` or ES import left in it. */
async function requested(source: string): Promise<string[]> {
  const names = new Set<string>();
  for (const match of source.matchAll(/\brequire\s*\(\s*(?:"([^"]*)"|'([^']*)'|`([^`$]*)`|([^)]*))\s*\)/g)) {
    names.add(match[1] ?? match[2] ?? match[3] ?? `<computed: ${match[4]?.trim()}>`);
  }
  await init;
  // a CommonJS file is parsed as a script with ES syntax; dynamic import() is what it could still contain
  try {
    const [imports] = parse(source);
    for (const i of imports) names.add(i.n ?? '<computed import()>');
  } catch {
    // not parseable as a module (CommonJS with top-level return): the require scan stands
  }
  return [...names].sort();
}

function forbidden(names: string[]): string[] {
  return names.filter((n) => !SANDBOXED_PRELOAD_MODULES.includes(n));
}

describe("the built preload in Electron's sandbox", () => {
  it('requires nothing but what a sandboxed preload may require', async () => {
    const names = await requested(fs.readFileSync(PRELOAD, 'utf8'));
    expect(names).toContain('electron');
    expect(forbidden(names), `out/preload/preload.cjs requires modules Electron's sandbox refuses: bundle them, or drop the import`).toEqual([]);
  });

  it('the check catches a bundled dependency, a built-in and a computed require', async () => {
    const names = await requested('const z = require("zod"); const p = require(\'node:path\'); require(name); require("electron");');
    expect(forbidden(names)).toEqual(['<computed: name>', 'node:path', 'zod']);
  });

  it('loads as a sandboxed preload does: exposes the bridge and sends nothing before the page asks', () => {
    const exposed: Record<string, unknown> = {};
    const sent: unknown[] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
      ipcRenderer: { on: () => undefined, send: (...args: unknown[]) => sent.push(args) },
    };
    const sandboxRequire = (name: string) => {
      if (name === 'electron') return electron;
      if (SANDBOXED_PRELOAD_MODULES.includes(name)) return {};
      throw new Error(`module not found: ${name}`);
    };
    const module = { exports: {} };
    vm.runInNewContext(`(function (require, module, exports) {${fs.readFileSync(PRELOAD, 'utf8')}\n})`, {})(sandboxRequire, module, module.exports);
    expect(Object.keys(exposed)).toEqual(['commonroom']);
    expect(Object.keys(exposed.commonroom as object).sort()).toEqual(['chooseRoom', 'notify', 'onMessage', 'send']);
    expect(sent).toEqual([]);
  });
});
