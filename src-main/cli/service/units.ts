/**
 * What `commonroom service install` writes, as pure functions of what the service runs: a systemd user unit
 * (Linux), a launchd agent's property list (macOS), a Task Scheduler task (Windows). Each runs
 * `commonroom serve` for the person's room at their login, restarts it when it fails, and stops it the way
 * `serve` stops on SIGTERM (its shells' and stages' process trees end: shells do not outlive the room process).
 */

/** What the service runs, and with what around it. */
export interface ServiceSpec {
  /** The Node executable (absolute). */
  node: string;
  /** The `commonroom` entry script (absolute). */
  script: string;
  /** The room's markdown file (absolute), or undefined for the person's default room. */
  room: string | undefined;
  /** The loopback port it serves on. */
  port: number;
  /** Variables the room reads that were set when it was installed (COMMONROOM_*, PATH for agent CLIs…). */
  env: Record<string, string>;
  /** The person's home folder: the service's working folder. */
  home: string;
}

export const SYSTEMD_UNIT_NAME = 'commonroom.service';
export const LAUNCHD_LABEL = 'dev.commonroom.room';
export const WINDOWS_TASK_NAME = '\\Commonroom\\Room';

/** The command line after the program: `SCRIPT serve [--room FILE] --port N`. */
export function serveArgs(spec: ServiceSpec): string[] {
  return [spec.script, 'serve', ...(spec.room === undefined ? [] : ['--room', spec.room]), '--port', String(spec.port)];
}

/**
 * One word of a systemd command line (`exec`) or an Environment= assignment, quoted as systemd.syntax(7) and
 * systemd.service(5) read it: double quotes around it, backslash before `"` and `\`, `%` doubled (specifiers are
 * expanded in both); `$` doubled on a command line only (variables are expanded there, not in Environment=).
 * Control characters are refused: no path or value of ours has one, and a newline would end the line.
 */
export function systemdQuote(word: string, exec = true): string {
  if ([...word].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')) throw new Error(`a control character cannot go in a systemd unit: ${JSON.stringify(word)}`);
  const quoted = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  return `"${exec ? quoted.replace(/\$/g, '$$$$') : quoted}"`;
}

/** The systemd user unit (~/.config/systemd/user/commonroom.service). */
export function systemdUnit(spec: ServiceSpec): string {
  const env = Object.entries(spec.env)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `Environment=${systemdQuote(`${k}=${v}`, false)}`);
  return [
    '# Written by "commonroom service install": the person\'s room, served at their login.',
    '# Remove it with "commonroom service uninstall"; "commonroom service status" says how it is.',
    '[Unit]',
    `Description=Commonroom room${spec.room === undefined ? '' : ` ${spec.room.replace(/[%\n]/g, '_')}`} (commonroom serve)`,
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[spec.node, ...serveArgs(spec)].map((word) => systemdQuote(word)).join(' ')}`,
    `WorkingDirectory=${spec.home.replace(/%/g, '%%')}`,
    ...env,
    'Restart=on-failure',
    'RestartSec=2',
    // SIGTERM to serve alone: it ends its shells' and stages' process trees in order; whatever is left then gets SIGKILL
    'KillMode=mixed',
    'TimeoutStopSec=30',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** Text for XML character data and attribute values. */
export function xmlEscape(text: string): string {
  if ([...text].some((c) => c.charCodeAt(0) < 0x20 && c !== '\t' && c !== '\n' && c !== '\r')) throw new Error(`a control character cannot go in XML: ${JSON.stringify(text)}`);
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** The launchd agent (~/Library/LaunchAgents/dev.commonroom.room.plist), per launchd.plist(5). */
export function launchdPlist(spec: ServiceSpec, logFile: string): string {
  const s = (v: string) => `<string>${xmlEscape(v)}</string>`;
  const env = Object.entries(spec.env).sort(([a], [b]) => a.localeCompare(b));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${s(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[spec.node, ...serveArgs(spec)].map((a) => `    ${s(a)}`),
    '  </array>',
    ...(env.length > 0 ? ['  <key>EnvironmentVariables</key>', '  <dict>', ...env.map(([k, v]) => `    <key>${xmlEscape(k)}</key>${s(v)}`), '  </dict>'] : []),
    `  <key>WorkingDirectory</key>${s(spec.home)}`,
    '  <key>RunAtLoad</key><true/>',
    // restarted when it fails, not when it was stopped on purpose (it exits 0 on SIGTERM)
    '  <key>KeepAlive</key>',
    '  <dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ExitTimeOut</key><integer>30</integer>',
    `  <key>StandardOutPath</key>${s(logFile)}`,
    `  <key>StandardErrorPath</key>${s(logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** One argument for a Windows command line, quoted as CommandLineToArgvW reads it. */
export function windowsQuote(arg: string): string {
  if (arg !== '' && !/[\s"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/**
 * The Task Scheduler task (Task Scheduler schema 1.2), registered with `schtasks /Create /XML`: at the person's
 * logon, as them, with their interactive token and least privilege; no time limit; restarted when it fails;
 * one instance. The task runs with the person's own environment (set variables with `setx` to reach it).
 */
export function windowsTaskXml(spec: ServiceSpec, userId: string): string {
  const x = xmlEscape;
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    '    <Description>Commonroom: the person\'s room, served at their logon (commonroom serve)</Description>',
    `    <URI>${x(WINDOWS_TASK_NAME)}</URI>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    `    <LogonTrigger><Enabled>true</Enabled><UserId>${x(userId)}</UserId></LogonTrigger>`,
    '  </Triggers>',
    '  <Principals>',
    `    <Principal id="Author"><UserId>${x(userId)}</UserId><LogonType>InteractiveToken</LogonType><RunLevel>LeastPrivilege</RunLevel></Principal>`,
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <AllowHardTerminate>true</AllowHardTerminate>',
    '    <StartWhenAvailable>true</StartWhenAvailable>',
    '    <AllowStartOnDemand>true</AllowStartOnDemand>',
    '    <Enabled>true</Enabled>',
    '    <Hidden>false</Hidden>',
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <RestartOnFailure><Interval>PT1M</Interval><Count>3</Count></RestartOnFailure>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${x(spec.node)}</Command>`,
    `      <Arguments>${x(serveArgs(spec).map(windowsQuote).join(' '))}</Arguments>`,
    `      <WorkingDirectory>${x(spec.home)}</WorkingDirectory>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\r\n');
}

/** The words of a systemd command line (the inverse of systemdQuote on an ExecStart= line). */
export function systemdWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of line.matchAll(re)) {
    const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? '');
    words.push(raw.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return words;
}

function xmlUnescape(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] ?? '');
}

/** A Windows command line's arguments, as CommandLineToArgvW splits them (the inverse of windowsQuote). */
export function windowsWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) break;
    let word = '';
    let quoted = false;
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === '\\') {
        let n = 0;
        for (; line[i] === '\\'; i++) n++;
        if (line[i] === '"') {
          word += '\\'.repeat(Math.floor(n / 2));
          if (n % 2 === 1) word += '"';
          else quoted = !quoted;
        } else {
          word += '\\'.repeat(n);
          i--;
        }
      } else if (c === '"') quoted = !quoted;
      else if ((c === ' ' || c === '\t') && !quoted) break;
      else word += c;
    }
    words.push(word);
  }
  return words;
}

/** The `serve` arguments an installed file runs (after the program), or null when it has none we wrote. */
export function installedServeArgs(kind: 'systemd' | 'launchd' | 'task', text: string): string[] | null {
  if (kind === 'systemd') {
    const line = /^ExecStart=(.*)$/m.exec(text)?.[1];
    return line === undefined ? null : systemdWords(line).slice(1);
  }
  if (kind === 'launchd') {
    const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)?.[1];
    return array === undefined ? null : [...array.matchAll(/<string>([\s\S]*?)<\/string>/g)].map((m) => xmlUnescape(m[1] ?? '')).slice(1);
  }
  const args = /<Arguments>([\s\S]*?)<\/Arguments>/.exec(text)?.[1];
  return args === undefined ? null : windowsWords(xmlUnescape(args));
}

/** The room and port of `serve` arguments: [script, 'serve', '--room', FILE, '--port', N]. */
export function roomAndPort(args: readonly string[]): { room: string | undefined; port: number | null } {
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const port = Number(value('--port'));
  return { room: value('--room'), port: Number.isSafeInteger(port) ? port : null };
}
