import os from 'node:os';
import path from 'node:path';

/**
 * Where things live. Environment overrides come first so tests and portable installs can move them:
 * COMMONROOM_DATA_DIR (rooms), COMMONROOM_CONFIG_DIR (tokens). Otherwise the platform's usual folders.
 */
export interface Paths {
  dataDir: string;
  configDir: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): Paths {
  const home = os.homedir();
  const platformData =
    process.platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support', 'Commonroom')
      : process.platform === 'win32'
        ? path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Commonroom')
        : path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'commonroom');
  const platformConfig =
    process.platform === 'darwin' || process.platform === 'win32'
      ? platformData
      : path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'commonroom');
  return {
    dataDir: path.resolve(env.COMMONROOM_DATA_DIR || platformData),
    configDir: path.resolve(env.COMMONROOM_CONFIG_DIR || platformConfig),
  };
}

/** The room used when none is given: the app starts with no setup. */
export function defaultRoomMarkdown(paths: Paths): string {
  return path.join(paths.dataDir, 'rooms', 'default.md');
}

/** `notes.md` → `notes.md.commonroom.db`, beside it. */
export function databasePathFor(markdownPath: string): string {
  return `${markdownPath}.commonroom.db`;
}

/** The single-writer lock: a tiny SQLite file beside the room whose write lock the writer holds. */
export function lockPathFor(markdownPath: string): string {
  return `${markdownPath}.commonroom.lock`;
}

/** The operator's token for one room, in the user's config folder (0600). */
export function operatorTokenPath(paths: Paths, roomId: string): string {
  return path.join(paths.configDir, 'tokens', `${roomId}.operator.token`);
}
