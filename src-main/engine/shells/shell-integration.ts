/**
 * How a shell reports where each command's output starts and ends, with its exit code (the marks of
 * shell-marks.ts). bash and zsh get hooks at start-up (a bash init file, a zsh ZDOTDIR) that run the user's
 * own start-up files first, then mark every prompt: `marks`. Every other shell gets the marks around each
 * command shell_run types (`sentinel`), in that shell's own syntax. Pure decisions, so each platform's
 * shells are tested from any machine.
 */
export type SentinelFamily = 'posix' | 'fish' | 'powershell' | 'cmd';

export interface IntegrationPlan {
  /** `marks`: the shell marks its prompts itself; `sentinel`: shell_run wraps each command. */
  mode: 'marks' | 'sentinel';
  /** The syntax of the sentinel (also the fallback when a shell with marks never showed one). */
  family: SentinelFamily;
  args: string[];
  /** Added to the shell's environment (the start-up files remove them again). */
  env: Record<string, string>;
}

export interface IntegrationInput {
  file: string;
  args: string[];
  nonce: string;
  /** Where the start-up files are (integration-files.ts): `bash-init.sh` and `zsh/`. */
  dir: string;
  /** The shell's environment as asked for: ZDOTDIR (zsh), PS1 and PROMPT_COMMAND (bash --norc). */
  userEnv?: Record<string, string | undefined>;
  pathSep?: '/' | '\\';
}

/** The shell's name without folder and `.exe`, lower case: `bash`, `zsh`, `pwsh`, `cmd`. */
export function shellKind(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.toLowerCase().replace(/\.exe$/, '');
}

export function sentinelFamily(file: string): SentinelFamily {
  const kind = shellKind(file);
  if (kind === 'fish') return 'fish';
  if (kind === 'pwsh' || kind === 'powershell') return 'powershell';
  if (kind === 'cmd') return 'cmd';
  return 'posix';
}

export function integrationPlan(input: IntegrationInput): IntegrationPlan {
  const kind = shellKind(input.file);
  const sep = input.pathSep ?? '/';
  const family = sentinelFamily(input.file);
  const nonceEnv = { COMMONROOM_MARK_NONCE: input.nonce };
  if (kind === 'bash') {
    const bash = bashArgs(input.args);
    if (bash?.norc) return { mode: 'marks', family, args: input.args, env: bashNorcEnv(input.nonce, input.userEnv ?? {}) };
    if (bash) return { mode: 'marks', family, args: ['--init-file', `${input.dir}${sep}bash-init.sh`, ...bash.args], env: { ...nonceEnv, ...bash.env } };
  }
  if (kind === 'zsh' && zshTakesStartupFiles(input.args)) {
    const env: Record<string, string> = { ...nonceEnv, ZDOTDIR: `${input.dir}${sep}zsh` };
    const userZdotdir = input.userEnv?.ZDOTDIR;
    if (userZdotdir) env.COMMONROOM_USER_ZDOTDIR = userZdotdir;
    return { mode: 'marks', family, args: input.args, env };
  }
  if (family === 'cmd') {
    // delayed expansion (/V:ON): the sentinel reads !ERRORLEVEL! when it runs, not when the line is parsed;
    // cmd cannot write an escape byte from a command line, so the shell keeps ESC and BEL in variables
    const args = input.args.some((a) => /^\/v:on$/i.test(a)) ? input.args : ['/V:ON', ...input.args];
    return { mode: 'sentinel', family, args, env: { COMMONROOM_ESC: '\u001b', COMMONROOM_BEL: '\u0007' } };
  }
  return { mode: 'sentinel', family, args: input.args, env: {} };
}

/**
 * bash --norc reads no start-up file at all (not even an --init-file), so its hooks come in the environment:
 * the marks around PS1, the C mark in PS0, the D mark in PROMPT_COMMAND (before the user's own).
 */
function bashNorcEnv(nonce: string, userEnv: Record<string, string | undefined>): Record<string, string> {
  const mark = (kind: string) => `\\[\\033]133;${kind};cr=${nonce}\\007\\]`;
  const ps1 = userEnv.PS1 ?? '\\s-\\v\\$ ';
  const own = `printf '\\033]133;D;%s;cr=${nonce}\\007' "$?"`;
  return {
    PS1: `${mark('A')}${ps1}${mark('B')}`,
    PS0: `${userEnv.PS0 ?? ''}\\033]133;C;cr=${nonce}\\007`,
    PROMPT_COMMAND: userEnv.PROMPT_COMMAND ? `${own}; ${userEnv.PROMPT_COMMAND}` : own,
  };
}

/**
 * bash reads `--init-file` only as an interactive, non-login shell: a login shell (-l) becomes a non-login
 * one whose init file reads the login files instead. With --norc the hooks come in the environment (norc). A
 * command (-c), a script, stdin (-s) or the user's own rc file leave bash alone (null: sentinel).
 */
function bashArgs(args: string[]): { args: string[]; env: Record<string, string>; norc: boolean } | null {
  const out: string[] = [];
  const env: Record<string, string> = {};
  let login = false;
  let noProfile = false;
  let norc = false;
  for (const arg of args) {
    if (arg === '--login' || arg === '-l') login = true;
    else if (arg === '--norc') norc = true;
    else if (arg === '--noprofile') {
      noProfile = true;
      out.push(arg);
    } else if (arg === '--rcfile' || arg === '--init-file' || arg === '--posix' || arg === '-c' || arg === '-s' || arg === '--') return null;
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (/[cs]/.test(arg)) return null;
      if (arg.includes('l')) login = true;
      const rest = arg.replace(/l/g, '');
      if (rest !== '-') out.push(rest);
    } else if (arg.startsWith('-')) out.push(arg);
    else return null; // a script
  }
  if (login && !noProfile) env.COMMONROOM_BASH_LOGIN = '1';
  return { args: out, env, norc };
}

/** zsh reads start-up files (so ZDOTDIR works) unless told not to (-f, --no-rcs) or given a command or script. */
function zshTakesStartupFiles(args: string[]): boolean {
  for (const arg of args) {
    if (arg === '--no-rcs' || arg === '--no-globalrcs' || arg === '-c' || arg === '-s' || arg === '--') return false;
    if (/^-[a-zA-Z]+$/.test(arg) && /[fcs]/.test(arg)) return false;
    if (!arg.startsWith('-') && !arg.startsWith('+')) return false;
  }
  return true;
}

/**
 * The line shell_run types in a shell without marks: a C mark, the command, then a D mark with its exit
 * status, in the shell's own syntax. A trailing `;` is dropped and a trailing `&` kept (the status is then the
 * background start's). cmd marks no start: its output is what follows the echoed line.
 */
export function sentinelLine(family: SentinelFamily, command: string, nonce: string): string {
  const body = command.replace(/\s+$/, '');
  if (family === 'cmd') {
    return `${body} & echo !COMMONROOM_ESC!]133;D;!ERRORLEVEL!;cr=${nonce}!COMMONROOM_BEL!`;
  }
  if (family === 'powershell') {
    const esc = '$([char]27)';
    const bel = '$([char]7)';
    // $? first: it must be the command's, and $LASTEXITCODE is a native program's own code
    const code = '$(if ($?) { 0 } elseif ($LASTEXITCODE) { $LASTEXITCODE } else { 1 })';
    return `[Console]::Write("${esc}]133;C;cr=${nonce}${bel}"); ${body}; [Console]::Write("${esc}]133;D;${code};cr=${nonce}${bel}")`;
  }
  const status = family === 'fish' ? '$status' : '"$?"';
  const trimmed = body.replace(/;+$/, '');
  const joiner = /(^|[^&])&$/.test(trimmed) ? ' ' : '; ';
  return `printf '\\033]133;C;cr=${nonce}\\007'; ${trimmed}${joiner}printf '\\033]133;D;%s;cr=${nonce}\\007' ${status}`;
}

/** Typed after C-c in a sentinel shell: the interrupted line's D mark never ran, so ask the shell for `$?`. */
export function statusProbeLine(family: SentinelFamily, nonce: string): string | null {
  if (family === 'posix') return `printf '\\033]133;D;%s;cr=${nonce}\\007' "$?"`;
  if (family === 'fish') return `printf '\\033]133;D;%s;cr=${nonce}\\007' $status`;
  if (family === 'powershell') {
    return `[Console]::Write("$([char]27)]133;D;$(if ($?) { 0 } elseif ($LASTEXITCODE) { $LASTEXITCODE } else { 1 });cr=${nonce}$([char]7)")`;
  }
  return null; // cmd goes on with the rest of its line (the sentinel) after C-c ends the program
}
