import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// One build for every entry: the Electron main process, the plain-Node CLIs (`commonroom`, `ce`) that share
// its code, the sandboxed preload (CommonJS, as sandboxed preloads must be) and the React renderer.
// Dependencies stay external, so native modules (better-sqlite3, node-pty) load from node_modules.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
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
