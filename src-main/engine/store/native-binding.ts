import type Database from 'better-sqlite3';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which compiled better-sqlite3 to load. Plain Node (serve, ce, tests) uses the package's own build. Inside
 * Electron (another ABI) the shared node_modules must not be rebuilt (that would break Node), so an
 * Electron-ABI build of its own lives in `.electron-native/` (made by `npm run native:electron`, which
 * `npm start` runs when it is missing) and is handed to better-sqlite3 through its `nativeBinding` option.
 * A packaged app has none: electron-builder rebuilt the package for Electron, so its own build is right there.
 */
export interface BindingInputs {
  versions: { electron?: string | undefined };
  platform: string;
  arch: string;
  env: Record<string, string | undefined>;
  /** The package root (holds package.json and `.electron-native/`). */
  root: string;
  exists(file: string): boolean;
}

/** Folder of the Electron-ABI build for one Electron version and platform. */
export function electronNativeDir(root: string, electron: string, platform: string, arch: string): string {
  return path.join(root, '.electron-native', `electron-${electron}-${platform}-${arch}`);
}

/** The `nativeBinding` path to use, or undefined for the package's own build. Pure: tested as such. */
export function selectSqliteBinding(inputs: BindingInputs): string | undefined {
  const override = inputs.env.COMMONROOM_SQLITE_BINDING;
  if (override) {
    if (!inputs.exists(override)) throw new Error(`COMMONROOM_SQLITE_BINDING=${override} does not exist: point it at a better_sqlite3.node, or unset it`);
    return override;
  }
  const electron = inputs.versions.electron;
  if (!electron) return undefined;
  const built = path.join(electronNativeDir(inputs.root, electron, inputs.platform, inputs.arch), 'better_sqlite3.node');
  return inputs.exists(built) ? built : undefined;
}

function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return process.cwd();
}

/**
 * Plain Node: the package's own Release build named directly, so better-sqlite3 skips `bindings`, which finds
 * it by probing a dozen paths (and parsing a stack trace) before the first answer. Undefined elsewhere (then
 * `bindings` searches as before).
 */
function packageBuild(): string | undefined {
  if ((process.versions as { electron?: string }).electron) return undefined;
  try {
    const built = path.join(path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    return fs.existsSync(built) ? built : undefined;
  } catch {
    return undefined;
  }
}

let chosen: { nativeBinding?: string } | undefined;

/** Options to spread into every `new Database(...)` of this process. */
function sqliteBindingOptions(): { nativeBinding?: string } {
  if (!chosen) {
    const binding = selectSqliteBinding({
      versions: process.versions as { electron?: string },
      platform: process.platform,
      arch: process.arch,
      env: process.env,
      root: packageRoot(),
      exists: (f) => fs.existsSync(f),
    });
    const own = binding ?? packageBuild();
    chosen = own ? { nativeBinding: own } : {};
  }
  return chosen;
}

let sqlite: typeof Database | undefined;

/**
 * Opens a better-sqlite3 connection with this process's binding. The package is loaded through `require`: a
 * static ESM import of this CommonJS package makes Node first scan its source for named exports (loading
 * cjs-module-lexer, which nothing else at start needs), ~5 ms of CPU before the room's first answer.
 */
export function openDatabase(file: string, options: Database.Options): Database.Database {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return new sqlite(file, { ...options, ...sqliteBindingOptions() });
}
