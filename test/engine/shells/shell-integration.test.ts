import { describe, expect, it } from 'vitest';
import { keyBytes } from '../../../src-main/common/shell-keys';
import { integrationPlan, sentinelLine, statusProbeLine, shellKind } from '../../../src-main/engine/shells/shell-integration';
import { ShellMarks, parseMarkPayload } from '../../../src-main/engine/shells/shell-marks';

const plan = (file: string, args: string[] = [], extra: { userEnv?: Record<string, string>; pathSep?: '/' | '\\' } = {}) =>
  integrationPlan({ file, args, nonce: 'n0nce', dir: extra.pathSep === '\\' ? 'C:\\cr\\si' : '/data/si', ...extra });

describe('which shells get prompt marks, and how (every platform, decided from any machine)', () => {
  it('names shells the same on every platform', () => {
    expect(shellKind('/bin/bash')).toBe('bash');
    expect(shellKind('C:\\Program Files\\PowerShell\\7\\pwsh.exe')).toBe('pwsh');
    expect(shellKind('C:\\Windows\\System32\\CMD.EXE')).toBe('cmd');
    expect(shellKind('/opt/homebrew/bin/fish')).toBe('fish');
  });

  it('bash: an init file that runs the user\'s rc, a login shell turned into one that reads the login files', () => {
    expect(plan('/bin/bash')).toEqual({ mode: 'marks', family: 'posix', args: ['--init-file', '/data/si/bash-init.sh'], env: { COMMONROOM_MARK_NONCE: 'n0nce' } });
    expect(plan('/bin/bash', ['-l'])).toMatchObject({ args: ['--init-file', '/data/si/bash-init.sh'], env: { COMMONROOM_BASH_LOGIN: '1' } });
    expect(plan('/bin/bash', ['--login', '--noprofile']).env).not.toHaveProperty('COMMONROOM_BASH_LOGIN');
    expect(plan('/bin/bash', ['-il']).args).toEqual(['--init-file', '/data/si/bash-init.sh', '-i']);
    // macOS's bash 3.2 gets the same plan (its init file marks command starts with a DEBUG trap instead of PS0)
    expect(plan('/bin/bash', ['-l']).mode).toBe('marks');
  });

  it('bash --norc reads no file: the marks come in PS1, PS0 and PROMPT_COMMAND, around the user\'s own', () => {
    const p = plan('/bin/bash', ['--noprofile', '--norc'], { userEnv: { PS1: 'P> ', PROMPT_COMMAND: 'mine' } });
    expect(p.args).toEqual(['--noprofile', '--norc']);
    expect(p.env.PS1).toBe('\\[\\033]133;A;cr=n0nce\\007\\]P> \\[\\033]133;B;cr=n0nce\\007\\]');
    expect(p.env.PS0).toBe('\\033]133;C;cr=n0nce\\007');
    expect(p.env.PROMPT_COMMAND).toBe(`printf '\\033]133;D;%s;cr=n0nce\\007' "$?"; mine`);
  });

  it('bash running a command or script, or with its own rc file, is left alone (sentinel)', () => {
    for (const args of [['-c', 'ls'], ['script.sh'], ['--rcfile', 'x'], ['-s'], ['-ic', 'ls']]) {
      expect(plan('/bin/bash', args)).toEqual({ mode: 'sentinel', family: 'posix', args, env: {} });
    }
  });

  it('zsh: a ZDOTDIR whose files run the user\'s (from their ZDOTDIR when set)', () => {
    expect(plan('/bin/zsh', ['-l'])).toEqual({ mode: 'marks', family: 'posix', args: ['-l'], env: { COMMONROOM_MARK_NONCE: 'n0nce', ZDOTDIR: '/data/si/zsh' } });
    expect(plan('/bin/zsh', [], { userEnv: { ZDOTDIR: '/home/u/.config/zsh' } }).env.COMMONROOM_USER_ZDOTDIR).toBe('/home/u/.config/zsh');
    for (const args of [['-f'], ['--no-rcs'], ['-c', 'ls'], ['x.zsh']]) expect(plan('/usr/bin/zsh', args).mode).toBe('sentinel');
  });

  it('Windows: PowerShell gets a PowerShell sentinel; cmd gets delayed expansion and ESC/BEL in variables', () => {
    const pwsh = plan('C:\\Program Files\\PowerShell\\7\\pwsh.exe', ['-NoLogo'], { pathSep: '\\' });
    expect(pwsh).toEqual({ mode: 'sentinel', family: 'powershell', args: ['-NoLogo'], env: {} });
    const cmd = plan('C:\\Windows\\System32\\cmd.exe', [], { pathSep: '\\' });
    expect(cmd).toEqual({ mode: 'sentinel', family: 'cmd', args: ['/V:ON'], env: { COMMONROOM_ESC: '\u001b', COMMONROOM_BEL: '\u0007' } });
    expect(plan('C:\\Windows\\System32\\cmd.exe', ['/v:on']).args).toEqual(['/v:on']);
  });

  it('sh, dash, ksh, fish and unknown shells get a sentinel', () => {
    for (const file of ['/bin/sh', '/bin/dash', '/bin/ksh', '/usr/bin/busybox']) expect(plan(file)).toMatchObject({ mode: 'sentinel', family: 'posix' });
    expect(plan('/usr/bin/fish')).toMatchObject({ mode: 'sentinel', family: 'fish' });
  });
});

describe('sentinel lines', () => {
  it('POSIX: a C mark, the command, a D mark with $?; a trailing ; dropped, a trailing & kept', () => {
    const c = "printf '\\033]133;C;cr=N\\007'; ";
    const d = "printf '\\033]133;D;%s;cr=N\\007' \"$?\"";
    expect(sentinelLine('posix', 'make test', 'N')).toBe(`${c}make test; ${d}`);
    expect(sentinelLine('posix', 'make test;  ', 'N')).toBe(`${c}make test; ${d}`);
    expect(sentinelLine('posix', 'server &', 'N')).toBe(`${c}server & ${d}`);
    expect(sentinelLine('posix', 'a && b', 'N')).toBe(`${c}a && b; ${d}`);
  });

  it('fish uses $status; PowerShell $? then $LASTEXITCODE; cmd !ERRORLEVEL! with no start mark', () => {
    expect(sentinelLine('fish', 'ls', 'N')).toMatch(/; ls; printf '\\033\]133;D;%s;cr=N\\007' \$status$/);
    const ps = sentinelLine('powershell', 'git status', 'N');
    expect(ps).toBe(
      '[Console]::Write("$([char]27)]133;C;cr=N$([char]7)"); git status; ' +
        '[Console]::Write("$([char]27)]133;D;$(if ($?) { 0 } elseif ($LASTEXITCODE) { $LASTEXITCODE } else { 1 });cr=N$([char]7)")',
    );
    expect(sentinelLine('cmd', 'dir', 'N')).toBe('dir & echo !COMMONROOM_ESC!]133;D;!ERRORLEVEL!;cr=N!COMMONROOM_BEL!');
    expect(statusProbeLine('posix', 'N')).toBe("printf '\\033]133;D;%s;cr=N\\007' \"$?\"");
    expect(statusProbeLine('cmd', 'N')).toBeNull();
  });
});

describe('ShellMarks', () => {
  const mark = (payload: string) => Buffer.from(`\u001b]133;${payload}\u0007`, 'latin1');

  it('finds marks with their offsets, only with this shell\'s nonce', () => {
    const marks = new ShellMarks('abc');
    const data = Buffer.concat([Buffer.from('ls\r\n'), mark('C;cr=abc'), Buffer.from('out\r\n'), mark('D;2;cr=abc'), mark('D;0;cr=evil'), mark('A;cr=abc')]);
    const found = marks.feed(data, 100);
    expect(found.map((m) => [m.kind, m.exitCode, m.start])).toEqual([
      ['C', null, 104],
      ['D', 2, 104 + mark('C;cr=abc').length + 5],
      ['A', null, 104 + mark('C;cr=abc').length + 5 + mark('D;2;cr=abc').length + mark('D;0;cr=evil').length],
    ]);
    expect(marks.last?.kind).toBe('A');
  });

  it('finds a mark split across chunks at any byte, ended by BEL or ESC \\', () => {
    const whole = Buffer.concat([Buffer.from('xx'), Buffer.from('\u001b]133;D;130;cr=abc\u001b\\', 'latin1'), Buffer.from('yy')]);
    for (let cut = 1; cut < whole.length; cut++) {
      const marks = new ShellMarks('abc');
      const found = [...marks.feed(whole.subarray(0, cut), 0), ...marks.feed(whole.subarray(cut), cut)];
      expect(found, `cut at ${cut}`).toEqual([{ kind: 'D', exitCode: 130, start: 2, end: whole.length - 2 }]);
    }
  });

  it('parses payloads strictly', () => {
    expect(parseMarkPayload('D;0;cr=n', 'n')).toEqual({ kind: 'D', exitCode: 0 });
    expect(parseMarkPayload('D;;cr=n', 'n')).toEqual({ kind: 'D', exitCode: null });
    expect(parseMarkPayload('Z;cr=n', 'n')).toBeNull();
    expect(parseMarkPayload('A', 'n')).toBeNull();
  });
});

describe('cursor keys follow DECCKM', () => {
  it('sends SS3 in application mode and CSI otherwise; other keys do not change', () => {
    expect(keyBytes('Up')).toBe('\u001b[A');
    expect(keyBytes('Up', { applicationCursorKeys: true })).toBe('\u001bOA');
    expect(keyBytes('Left', { applicationCursorKeys: true })).toBe('\u001bOD');
    expect(keyBytes('Home', { applicationCursorKeys: true })).toBe('\u001bOH');
    expect(keyBytes('End', { applicationCursorKeys: true })).toBe('\u001bOF');
    expect(keyBytes('M-Up', { applicationCursorKeys: true })).toBe('\u001b\u001bOA');
    expect(keyBytes('PageUp', { applicationCursorKeys: true })).toBe('\u001b[5~');
    expect(keyBytes('C-c', { applicationCursorKeys: true })).toBe('\u0003');
  });
});
