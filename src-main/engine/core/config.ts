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

/** The platform's usual folders for the app's data (rooms), config (tokens) and logs. */
export interface PlatformFolders {
  data: string;
  config: string;
  log: string;
}

/**
 * Each platform's conventions: macOS keeps app data and settings in ~/Library/Application Support/<App> and
 * logs in ~/Library/Logs/<App>; Windows in %LOCALAPPDATA% (machine-local: the tokens must not travel with a
 * roaming profile, and databases are large); Linux follows the XDG base directories.
 */
export function platformFolders(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): PlatformFolders {
  if (platform === 'darwin') {
    const p = path.posix;
    const support = p.join(home, 'Library', 'Application Support', 'Commonroom');
    return { data: support, config: support, log: p.join(home, 'Library', 'Logs', 'Commonroom') };
  }
  if (platform === 'win32') {
    const w = path.win32;
    const local = w.join(env.LOCALAPPDATA || w.join(home, 'AppData', 'Local'), 'Commonroom');
    return { data: w.join(local, 'Data'), config: w.join(local, 'Config'), log: w.join(local, 'Log') };
  }
  const p = path.posix;
  const state = env.XDG_STATE_HOME || p.join(home, '.local', 'state');
  return {
    data: p.join(env.XDG_DATA_HOME || p.join(home, '.local', 'share'), 'commonroom'),
    config: p.join(env.XDG_CONFIG_HOME || p.join(home, '.config'), 'commonroom'),
    log: p.join(state, 'commonroom'),
  };
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = os.homedir()): Paths {
  const folders = platformFolders(platform, env, home);
  const p = platform === 'win32' ? path.win32 : path.posix;
  return {
    dataDir: p.resolve(env.COMMONROOM_DATA_DIR || folders.data),
    configDir: p.resolve(env.COMMONROOM_CONFIG_DIR || folders.config),
  };
}
