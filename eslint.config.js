// Layer rules of ARCHITECTURE.md, enforced here (and by the per-folder tsconfigs), not by memory.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const layers = ['common', 'net', 'engine', 'mcp', 'bridge', 'server', 'cli', 'app'];

/** A relative import that reaches into one of `names` (a sibling layer folder of src-main). */
const intoLayers = (names) => `^(\\.\\./)+(${names.join('|')})(/|$)`;

function zone(files, { forbidLayers = [], forbidNode = false, allowElectron = false, extraPaths = [], message }) {
  const patterns = [];
  if (forbidLayers.length > 0) patterns.push({ regex: intoLayers(forbidLayers), message });
  if (forbidNode) patterns.push({ group: ['node:*'], message: `${message} (no Node built-ins here)` });
  const paths = [
    ...(allowElectron ? [] : [{ name: 'electron', message: 'only src-main/app (and src-preload) may import electron' }]),
    ...(forbidNode ? nodeBuiltins.filter((m) => !m.startsWith('node:')).map((name) => ({ name, message: `${message} (no Node built-ins here)` })) : []),
    ...extraPaths.map((name) => ({ name, message })),
  ];
  return { files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } };
}

const others = (...allowed) => layers.filter((l) => !allowed.includes(l));
const native = ['better-sqlite3', 'node-pty', '@modelcontextprotocol/server', '@modelcontextprotocol/node'];

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
    message: 'common/ is pure TypeScript: it imports nothing but common/ and zod',
  }),
  zone(['src-main/net/**'], { forbidLayers: others('common', 'net'), message: 'net/ imports only common/' }),
  zone(['src-main/engine/**'], { forbidLayers: others('common', 'engine'), message: 'engine/ imports only common/ (doors call the engine, never the reverse)' }),
  zone(['src-main/mcp/**'], { forbidLayers: others('common', 'net', 'engine', 'mcp'), message: 'mcp/ is a door: it imports common/, net/ and engine/ only' }),
  zone(['src-main/bridge/**'], { forbidLayers: others('common', 'net', 'engine', 'bridge'), message: 'bridge/ is a door: it imports common/, net/ and engine/ only' }),
  zone(['src-main/server/**'], { forbidLayers: ['cli', 'app'], message: 'server/ composes the doors; it never imports cli/ or app/' }),
  zone(['src-main/cli/**'], { forbidLayers: others('common', 'engine', 'server', 'cli'), message: 'cli/ imports common/, engine/ and server/ only' }),
  zone(['src-main/app/**'], { allowElectron: true, message: 'app/ is the Electron shell' }),
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
    files: ['bin/**/*.js', 'bench/**/*.js', '.ci/**', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
);
