import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// One build for every entry: the Electron main process, the plain-Node CLIs (`commonroom`, `ce`) that share
// its code, the sandboxed preload (CommonJS, as sandboxed preloads must be) and the React renderer.
// Dependencies stay external, so native modules (better-sqlite3, node-pty) load from node_modules, all but the
// MCP SDK and zod: those are bundled. Loaded from node_modules they were ~170 ES modules to resolve, read and
// link before the first answer (zod's index alone pulls in its 50 locales), and the room started slower than a
// bare SDK server (the `startup` benchmark); bundled and tree-shaken they are two chunks, and it starts faster.
// One copy serves every entry (test/unit/boundaries.test.ts checks none imports them from node_modules).
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: { exclude: ['@modelcontextprotocol/server', '@modelcontextprotocol/node', 'zod'] },
      sourcemap: true,
      rollupOptions: {
        input: {
          app: resolve('src-main/app/main.ts'),
          commonroom: resolve('src-main/cli/commonroom.ts'),
          ce: resolve('src-main/cli/ce.ts'),
          'bench-entry': resolve('src-main/cli/bench-entry.ts'),
          // test-only: the conformance fixtures, loaded by `commonroom serve --test-fixtures` and nothing else
          'test-fixtures': resolve('src-main/testing/test-fixtures.ts'),
        },
        output: {
          // named chunks for what is bundled: zod (the engine's schemas need it, `ce` too) apart from the SDK's
          // server (the MCP doors only); its node:http adapter, Hono under it, stays in the chunk the runner
          // imports lazily on the first 2025-era request
          codeSplitting: {
            groups: [
              { name: 'zod', test: /node_modules[\\/]zod[\\/]/, priority: 2 },
              { name: 'mcp-sdk', test: /node_modules[\\/]@modelcontextprotocol[\\/](server|core)[\\/]/, priority: 1 },
            ],
          },
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve('src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    // relative asset paths: the same bundle loads from file:// in Electron and from /ui/ under `commonroom serve`
    base: './',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: resolve('src-renderer/index.html') },
    },
  },
});
