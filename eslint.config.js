// Layer rules of docs/architecture.md, enforced here (and by the per-folder tsconfigs), not by memory.
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
// Lowest first: common < net < engine < doors (mcp, api, bridge) < server, testing < cli, app. scripts/check-imports.mjs
// checks the same order (and that there are no cycles) over the whole import graph, in `npm test`.
const layers = ['common', 'net', 'engine', 'mcp', 'api', 'bridge', 'server', 'testing', 'cli', 'app'];

/** A relative import that reaches into one of `names` (a sibling layer folder of src-main). */
const intoLayers = (names) => `^(\\.\\./)+(${names.join('|')})(/|$)`;

/**
 * A relative import of the engine's insides: store/** (rows), a feature's modules, engine.ts, anything but its
 * one public module (engine/index.ts, whose DoorEngine is engine/ports.ts). Doors use DTOs from common/, call
 * the engine's method table and read through the ports.
 */
const intoEngineInternals = '^(\\.\\./)+engine/(?!index$)';
const ENGINE_SURFACE_MESSAGE =
  'doors and entry points use only the engine\'s public module (engine/index.ts: DoorEngine and its ports) and DTOs from common/, never engine/engine.ts, engine/store/** or a feature\'s internals';
/** The Engine class itself: only what starts an engine (server/runner.ts, cli/) holds it; doors get a DoorEngine. */
const ENGINE_CLASS = {
  regex: '^(\\.\\./)+engine/index$',
  importNames: ['Engine'],
  message: 'a door is given a DoorEngine (engine/ports.ts: call and the narrow ports), never the Engine class with its registries',
};

const PTY_ONLY_THERE = 'node-pty only through src-main/engine/terminal/pty.ts, the one terminal model (shells and tty stages alike)';

function zone(files, { forbidLayers = [], forbidNode = false, allowElectron = false, allowPty = false, engineSurfaceOnly = false, portsOnly = false, extraPaths = [], message }) {
  const patterns = [];
  if (forbidLayers.length > 0) patterns.push({ regex: intoLayers(forbidLayers), message });
  if (engineSurfaceOnly) patterns.push({ regex: intoEngineInternals, message: ENGINE_SURFACE_MESSAGE });
  if (portsOnly) patterns.push(ENGINE_CLASS);
  if (forbidNode) patterns.push({ group: ['node:*'], message: `${message} (no Node built-ins here)` });
  const paths = [
    ...(allowElectron ? [] : [{ name: 'electron', message: 'only src-main/app (and src-preload) may import electron' }]),
    ...(forbidNode ? nodeBuiltins.filter((m) => !m.startsWith('node:')).map((name) => ({ name, message: `${message} (no Node built-ins here)` })) : []),
    ...extraPaths.filter((name) => name !== 'node-pty').map((name) => ({ name, message })),
    ...(allowPty ? [] : [{ name: 'node-pty', message: extraPaths.includes('node-pty') ? message : PTY_ONLY_THERE }]),
  ];
  return { files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } };
}

const others = (...allowed) => layers.filter((l) => !allowed.includes(l));

function engineZone(files, { ignores = [], allowPty = false, forbidSibling } = {}) {
  const message = 'engine/ imports only common/ (doors call the engine, never the reverse)';
  const z = zone(files, { forbidLayers: others('common', 'engine'), allowPty, message });
  const options = z.rules['no-restricted-imports'][1];
  if (forbidSibling) {
    options.patterns.push({ regex: `^(\\.\\./)+${forbidSibling}(/|$)`, message: `engine/${forbidSibling}/ is a sibling feature: share through engine/terminal/ or common/, never import it` });
  }
  return ignores.length > 0 ? { ...z, ignores } : z;
}
const native = ['better-sqlite3', 'node-pty', '@modelcontextprotocol/server', '@modelcontextprotocol/node'];

/** The renderer's screens: one folder each under src-renderer/src/features/. */
const RENDERER_FEATURES = readdirSync(new URL('./src-renderer/src/features/', import.meta.url), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

/** A screen's files: the renderer's rules, and no import of another screen's folder. */
function rendererFeatureZone(feature) {
  const z = zone([`src-renderer/src/features/${feature}/**`], { forbidNode: true, extraPaths: native, message: 'the renderer imports src-main/common only; it reaches the engine through its client' });
  const siblings = RENDERER_FEATURES.filter((f) => f !== feature);
  z.rules['no-restricted-imports'][1].patterns.push({
    regex: `^(\\.\\./)+(${siblings.join('|')})(/|$)`,
    message: `features/${feature}/ is one screen: another screen's parts are not its to import; move what both use to src-renderer/src/shared/`,
  });
  return z;
}

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'dist/**', '.tmp/**', '.electron-native/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-deprecated': 'off',
      'no-console': 'off',
    },
  },
  zone(['src-main/common/**'], {
    forbidLayers: others('common'),
    forbidNode: true,
    extraPaths: native,
    message: 'common/ is pure TypeScript: it imports nothing but common/, zod and @cfworker/json-schema (answer-check.ts)',
  }),
  zone(['src-main/net/**'], { forbidLayers: others('common', 'net'), message: 'net/ imports only common/' }),
  // engine/: only common/ below it; node-pty only in the one terminal model (engine/terminal/pty.ts: every PTY,
  // for shells and tty graph stages, raw bytes, one signalName); shells/ and graphs/ never import each other
  // (what they share, a tty stage's terminal, lives in engine/terminal/)
  engineZone(['src-main/engine/**'], { ignores: ['src-main/engine/terminal/pty.ts'] }),
  engineZone(['src-main/engine/terminal/pty.ts'], { allowPty: true }),
  engineZone(['src-main/engine/shells/**'], { forbidSibling: 'graphs' }),
  engineZone(['src-main/engine/graphs/**'], { forbidSibling: 'shells' }),
  zone(['src-main/mcp/**'], { portsOnly: true, forbidLayers: others('common', 'net', 'engine', 'mcp'), engineSurfaceOnly: true, message: 'mcp/ is a door: it imports common/, net/ and the engine surface only' }),
  zone(['src-main/api/**'], { portsOnly: true, forbidLayers: others('common', 'net', 'engine', 'api'), engineSurfaceOnly: true, message: 'api/ (the /api route) is a door: it imports common/, net/ and the engine surface only' }),
  zone(['src-main/bridge/**'], { portsOnly: true, forbidLayers: others('common', 'net', 'engine', 'bridge'), engineSurfaceOnly: true, message: 'bridge/ (renderer transports) is a door: it imports common/, net/ and the engine surface only' }),
  zone(['src-main/server/**'], { forbidLayers: ['testing', 'cli', 'app'], engineSurfaceOnly: true, message: 'server/ composes the doors; it never imports testing/, cli/ or app/' }),
  zone(['src-main/testing/**'], { forbidLayers: ['cli', 'app'], message: 'testing/ (the test-only fixture entry) never imports cli/ or app/' }),
  zone(['src-main/cli/**'], { forbidLayers: others('common', 'engine', 'server', 'cli'), engineSurfaceOnly: true, message: 'cli/ imports common/, the engine surface and server/ only (testing/ is loaded by URL, never imported)' }),
  zone(['src-main/app/**'], { portsOnly: true, allowElectron: true, engineSurfaceOnly: true, forbidLayers: ['testing', 'cli'], message: 'app/ is the Electron shell' }),
  zone(['src-preload/**'], {
    allowElectron: true,
    forbidNode: true,
    extraPaths: native,
    message: 'the preload imports electron and src-main/common only',
  }),
  zone(['src-renderer/**'], {
    forbidNode: true,
    extraPaths: native,
    message: 'the renderer imports src-main/common only; it reaches the engine through its client',
  }),
  // each screen is a sibling of the others: what two screens use lives in src-renderer/src/shared/ (or app/, stores/)
  ...RENDERER_FEATURES.map((feature) => rendererFeatureZone(feature)),
  {
    files: ['src-preload/**', 'src-renderer/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "ImportDeclaration[source.value=/src-main\\/(?!common\\/)/]", message: 'only src-main/common may be imported here' },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'bench/**/*.js', 'scripts/**/*.mjs', '.ci/**', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
  {
    // the Electron harness's main-process side runs under plain Node
    files: ['test/harness/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', setImmediate: 'readonly', structuredClone: 'readonly' } },
  },
);
