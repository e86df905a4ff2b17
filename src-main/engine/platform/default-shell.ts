import fs from 'node:fs';
import path from 'node:path';

/** What the default shell depends on, passed in so every platform is tested from any machine. */
export interface ShellHost {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  exists(file: string): boolean;
}

const realHost: ShellHost = { platform: process.platform, env: process.env, exists: (f) => fs.existsSync(f) };

/**
 * The shell a new terminal runs when none is asked for: the user's own. On macOS and Linux that is $SHELL
 * (zsh on macOS when unset: the system default since 10.15; else bash, else sh). On Windows, PowerShell 7 when
 * installed, else Windows PowerShell (present on every supported Windows), else COMSPEC (cmd.exe); $SHELL only
 * when it names an existing file (a Git Bash or MSYS user's choice).
 */
export function defaultShell(host: ShellHost = realHost): string {
  const { env, exists } = host;
  const fromEnv = env.SHELL;
  if (fromEnv && exists(fromEnv)) return fromEnv;
  if (host.platform === 'win32') {
    const win = path.win32;
    const programFiles = env.ProgramFiles ?? env.PROGRAMFILES ?? 'C:\\Program Files';
    const candidates = [
      win.join(programFiles, 'PowerShell', '7', 'pwsh.exe'),
      win.join(windowsRoot(env), 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe'),
    ];
    for (const c of candidates) if (exists(c)) return c;
    return windowsCommandInterpreter(env);
  }
  const posix = host.platform === 'darwin' ? ['/bin/zsh', '/bin/bash', '/bin/sh'] : ['/bin/bash', '/bin/sh'];
  return posix.find((f) => exists(f)) ?? '/bin/sh';
}

function windowsRoot(env: NodeJS.ProcessEnv): string {
  return env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows';
}

/** Windows' command interpreter: COMSPEC when set, else cmd.exe in System32. */
export function windowsCommandInterpreter(env: NodeJS.ProcessEnv): string {
  return env.ComSpec ?? env.COMSPEC ?? path.win32.join(windowsRoot(env), 'System32', 'cmd.exe');
}
