#!/usr/bin/env node
// `npm run native:electron`: an Electron-ABI build of better-sqlite3 in .electron-native/, WITHOUT touching the
// shared node_modules (whose Node build `serve`, `ce` and the tests use). A copy of the package is built apart
// (prebuilt binary for Electron's ABI through prebuild-install; else node-gyp against Electron's headers) and
// only its better_sqlite3.node is kept. src-main/engine/store/native-binding.ts loads it inside Electron.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electron = JSON.parse(readFileSync(path.join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
const { platform, arch } = process;
const target = path.join(root, '.electron-native', `electron-${electron}-${platform}-${arch}`);
const output = path.join(target, 'better_sqlite3.node');

if (existsSync(output) && !process.argv.includes('--force')) {
  console.log(`already built: ${output}`);
  process.exit(0);
}

const work = path.join(root, '.electron-native', 'work', 'better-sqlite3');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.dirname(work), { recursive: true });
const source = path.join(root, 'node_modules', 'better-sqlite3');
for (const part of ['package.json', 'binding.gyp', 'src', 'deps', 'lib']) cpSync(path.join(source, part), path.join(work, part), { recursive: true });

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (command, args) => spawnSync(command, args, { cwd: work, stdio: 'inherit', env: { ...process.env, npm_config_runtime: 'electron', npm_config_target: electron } }).status === 0;

console.log(`building better-sqlite3 for Electron ${electron} (${platform}-${arch}) into ${target}`);
const ok =
  run(bin('prebuild-install'), ['--runtime', 'electron', '--target', electron, '--arch', arch, '--platform', platform, '--tag-prefix', 'v']) ||
  run('npx', ['--yes', 'node-gyp', 'rebuild', '--release', `--target=${electron}`, `--arch=${arch}`, '--dist-url=https://electronjs.org/headers']);
const built = path.join(work, 'build', 'Release', 'better_sqlite3.node');
if (!ok || !existsSync(built)) {
  console.error(
    'could not build better-sqlite3 for Electron: prebuild-install needs to reach github.com (or set npm_config_disturl / a mirror), ' +
      'node-gyp needs a C++ toolchain, python3 and electronjs.org/headers. Fix one of those and run "npm run native:electron" again.',
  );
  process.exit(1);
}
mkdirSync(target, { recursive: true });
copyFileSync(built, output);
rmSync(path.dirname(work), { recursive: true, force: true });
console.log(`done: ${output}`);
