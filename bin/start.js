#!/usr/bin/env node
// `npm start`: the desktop app where Electron can start; otherwise the same room process headless
// (`commonroom serve`), saying why. Extra arguments go to serve, e.g. `npm start -- --port 0`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** Why Electron cannot start here, or null when it can be tried. Never triggers Electron's own download. */
function whyNoElectron() {
  if (process.env.COMMONROOM_HEADLESS === '1') return 'COMMONROOM_HEADLESS=1 is set';
  const pkg = path.join(root, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return 'the Electron binary is not installed (node_modules/electron has no downloaded binary, and this machine cannot fetch one)';
  const binary = path.join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(binary)) return `the Electron binary ${binary} is missing`;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
  return binary;
}

async function headless(reason) {
  console.log(`Electron cannot start here: ${reason}.`);
  console.log('Running headless instead: commonroom serve (the same room process, without a window).\n');
  process.argv = [process.argv[0], path.join(root, 'bin', 'commonroom.js'), 'serve', ...args];
  await import(new URL('../bin/commonroom.js', import.meta.url).href);
}

const found = whyNoElectron();
if (!found || !path.isAbsolute(found)) {
  await headless(found ?? 'unknown reason');
} else {
  const started = Date.now();
  const child = spawn(found, [root, ...args], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => void headless(`Electron failed to launch (${error.message})`));
  child.on('exit', (code, signal) => {
    // an Electron that dies at once (missing libraries, native module ABI) falls back instead of leaving nothing running
    if (code !== 0 && signal === null && Date.now() - started < 10_000) void headless(`Electron exited at start with code ${code}`);
    else process.exit(code ?? 0);
  });
}
