#!/usr/bin/env node
// `npm start`: the desktop app where Electron can start; otherwise the same room process headless
// (`commonroom serve`), saying why and how to fix it. Extra arguments go to serve, e.g. `npm start -- --port 0`.
// On first use it installs what Electron needs, each step announced: Electron's own binary (its installer,
// node_modules/electron/install.js) and an Electron-ABI better-sqlite3 in .electron-native/ (bin/electron-native.js),
// so the shared node_modules stays built for Node (serve, ce and the tests keep working).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { electronBinary as findElectronBinary } from './electron-binary.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const electronPkg = path.join(root, 'node_modules', 'electron');

const electronBinary = () => findElectronBinary(electronPkg);

function nodeAtLeast(major, minor) {
  const [a, b] = process.versions.node.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/** The Electron binary, running Electron's own installer first when it is missing; or why it cannot be had. */
function ensureElectron() {
  const found = electronBinary();
  if (found) return { binary: found };
  console.log("Electron's binary is not installed: running Electron's installer (node node_modules/electron/install.js)…");
  if (!nodeAtLeast(22, 12)) console.log(`  note: Electron 45's installer wants Node >= 22.12; this is Node ${process.versions.node}.`);
  const r = spawnSync(process.execPath, [path.join(electronPkg, 'install.js')], { cwd: electronPkg, stdio: 'inherit' });
  const binary = electronBinary();
  if (r.status === 0 && binary) return { binary };
  return {
    reason: `Electron's installer failed (exit ${r.status ?? r.signal}): it downloads Electron from github.com`,
    fix: `check the network (or set ELECTRON_MIRROR), use Node >= 22.12 for the installer (e.g. "npx -y node@22 node_modules/electron/install.js"), then run "npm start" again`,
  };
}

/** better-sqlite3 for Electron's ABI in .electron-native/ (see src-main/engine/store/native-binding.ts). */
function ensureNativeSqlite() {
  const electron = JSON.parse(readFileSync(path.join(electronPkg, 'package.json'), 'utf8')).version;
  const built = path.join(root, '.electron-native', `electron-${electron}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
  if (existsSync(built)) return {};
  console.log('better-sqlite3 has no Electron build yet: building one apart in .electron-native/ (npm run native:electron)…');
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'electron-native.js')], { stdio: 'inherit' });
  if (r.status === 0 && existsSync(built)) return {};
  return { reason: 'better-sqlite3 could not be built for Electron', fix: 'see the message above, then run "npm run native:electron" and "npm start" again' };
}

async function headless(reason, fix) {
  console.log(`Electron cannot start here: ${reason}.`);
  if (fix) console.log(`  fix: ${fix}`);
  console.log('Running headless instead: commonroom serve (the same room process; open the UI link it prints in a browser).\n');
  process.argv = [process.argv[0], path.join(root, 'bin', 'commonroom.js'), 'serve', ...args];
  await import(new URL('../bin/commonroom.js', import.meta.url).href);
}

function noDisplay() {
  if (process.env.COMMONROOM_HEADLESS === '1') return { reason: 'COMMONROOM_HEADLESS=1 is set', fix: 'unset it to open the window' };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)', fix: 'run it in a desktop session, or use the browser UI that serve prints' };
  }
  return null;
}

const blocked = noDisplay();
const electron = blocked ? null : ensureElectron();
const sqlite = blocked || !electron?.binary ? null : ensureNativeSqlite();
const problem = blocked ?? (electron?.binary ? null : electron) ?? (sqlite?.reason ? sqlite : null);
if (problem) {
  await headless(problem.reason, problem.fix);
} else {
  const started = Date.now();
  const child = spawn(electron.binary, [root, ...args], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => void headless(`Electron failed to launch (${error.message})`, 'see the error above'));
  child.on('exit', (code, signal) => {
    // an Electron that dies at once (missing libraries, native module ABI) falls back instead of leaving nothing running
    if (code !== 0 && signal === null && Date.now() - started < 10_000) {
      void headless(`Electron exited at start with code ${code}`, 'read its error above (missing system libraries: install your distribution\'s Electron dependencies, e.g. libnss3 libgtk-3-0)');
    } else process.exit(code ?? 0);
  });
}
