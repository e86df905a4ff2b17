import { windowsCommandInterpreter } from './default-shell';

/** How a stage's command is started: the program, its arguments, and whether they are passed as written. */
export interface StageLaunch {
  file: string;
  args: string[];
  /** Windows only: hand the arguments to the program unquoted (cmd.exe parses its own command line). */
  verbatim: boolean;
}

/**
 * An argv array runs directly with no shell on every platform. A command string runs in the platform's
 * command interpreter: `/bin/sh -c` on macOS and Linux; on Windows `cmd.exe /d /s /c "…"` (COMSPEC when set),
 * passed verbatim so cmd.exe sees the string exactly as written — /s strips the one pair of outer quotes and
 * /d skips AutoRun scripts a user may have set up for interactive prompts.
 */
export function stageLaunch(
  command: string | readonly string[],
  host: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv } = process,
): StageLaunch {
  if (typeof command !== 'string') return { file: command[0] as string, args: command.slice(1), verbatim: false };
  if (host.platform !== 'win32') return { file: '/bin/sh', args: ['-c', command], verbatim: false };
  return { file: windowsCommandInterpreter(host.env), args: ['/d', '/s', '/c', `"${command}"`], verbatim: true };
}
