import { describe, expect, it } from 'vitest';
import { platformFolders, resolvePaths } from '../../src-main/engine/core/config';
import { defaultShell, type ShellHost } from '../../src-main/engine/platform/default-shell';
import { stageLaunch } from '../../src-main/engine/platform/stage-command';
import { privateAclCommand, restrictToUser } from '../../src-main/engine/platform/private-acl';

/** Per-platform decisions, checked with fake platforms and environments from this (Linux) machine. */

function host(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, files: string[]): ShellHost {
  return { platform, env, exists: (f) => files.includes(f) };
}

describe('the default shell', () => {
  it('is $SHELL when it exists, on every platform', () => {
    expect(defaultShell(host('linux', { SHELL: '/usr/bin/fish' }, ['/usr/bin/fish', '/bin/bash']))).toBe('/usr/bin/fish');
    expect(defaultShell(host('darwin', { SHELL: '/opt/homebrew/bin/bash' }, ['/opt/homebrew/bin/bash', '/bin/zsh']))).toBe('/opt/homebrew/bin/bash');
    expect(defaultShell(host('win32', { SHELL: 'C:\\Program Files\\Git\\bin\\bash.exe' }, ['C:\\Program Files\\Git\\bin\\bash.exe']))).toBe('C:\\Program Files\\Git\\bin\\bash.exe');
  });

  it('falls back to zsh on macOS, bash then sh elsewhere, when $SHELL is unset or gone', () => {
    expect(defaultShell(host('darwin', {}, ['/bin/zsh', '/bin/bash']))).toBe('/bin/zsh');
    expect(defaultShell(host('darwin', { SHELL: '/gone' }, ['/bin/zsh']))).toBe('/bin/zsh');
    expect(defaultShell(host('linux', {}, ['/bin/zsh', '/bin/bash', '/bin/sh']))).toBe('/bin/bash');
    expect(defaultShell(host('linux', {}, ['/bin/sh']))).toBe('/bin/sh');
  });

  it('on Windows prefers PowerShell 7, then Windows PowerShell, then COMSPEC', () => {
    const env = { ProgramFiles: 'C:\\Program Files', SystemRoot: 'C:\\Windows', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };
    const pwsh = 'C:\\Program Files\\PowerShell\\7\\pwsh.exe';
    const winps = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';
    expect(defaultShell(host('win32', env, [pwsh, winps]))).toBe(pwsh);
    expect(defaultShell(host('win32', env, [winps]))).toBe(winps);
    expect(defaultShell(host('win32', env, []))).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(defaultShell(host('win32', {}, []))).toBe('C:\\Windows\\System32\\cmd.exe');
  });
});

describe('folders per platform', () => {
  it('macOS: Application Support and Logs', () => {
    expect(platformFolders('darwin', {}, '/Users/ada')).toEqual({
      data: '/Users/ada/Library/Application Support/Commonroom',
      config: '/Users/ada/Library/Application Support/Commonroom',
      log: '/Users/ada/Library/Logs/Commonroom',
    });
  });

  it('Windows: machine-local %LOCALAPPDATA%, also when the variable is missing', () => {
    expect(platformFolders('win32', { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local', APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'C:\\Users\\ada')).toEqual({
      data: 'C:\\Users\\ada\\AppData\\Local\\Commonroom\\Data',
      config: 'C:\\Users\\ada\\AppData\\Local\\Commonroom\\Config',
      log: 'C:\\Users\\ada\\AppData\\Local\\Commonroom\\Log',
    });
    expect(platformFolders('win32', {}, 'C:\\Users\\ada').data).toBe('C:\\Users\\ada\\AppData\\Local\\Commonroom\\Data');
  });

  it('Linux: the XDG base directories, with their defaults', () => {
    expect(platformFolders('linux', {}, '/home/ada')).toEqual({
      data: '/home/ada/.local/share/commonroom',
      config: '/home/ada/.config/commonroom',
      log: '/home/ada/.local/state/commonroom',
    });
    expect(platformFolders('linux', { XDG_DATA_HOME: '/d', XDG_CONFIG_HOME: '/c', XDG_STATE_HOME: '/s' }, '/home/ada')).toEqual({
      data: '/d/commonroom',
      config: '/c/commonroom',
      log: '/s/commonroom',
    });
  });

  it('the COMMONROOM_DATA_DIR and COMMONROOM_CONFIG_DIR overrides win on every platform', () => {
    expect(resolvePaths({ COMMONROOM_DATA_DIR: 'D:\\rooms', COMMONROOM_CONFIG_DIR: 'D:\\cfg' }, 'win32', 'C:\\Users\\ada')).toEqual({ dataDir: 'D:\\rooms', configDir: 'D:\\cfg' });
    expect(resolvePaths({ COMMONROOM_DATA_DIR: '/srv/rooms' }, 'darwin', '/Users/ada')).toEqual({
      dataDir: '/srv/rooms',
      configDir: '/Users/ada/Library/Application Support/Commonroom',
    });
  });
});

describe('private files on Windows', () => {
  it('drops inherited entries and grants the user alone full control (folders: to all they hold)', () => {
    expect(privateAclCommand('C:\\x\\op.token', { domain: 'CORP', name: 'ada' }, 'file')).toEqual([
      'icacls',
      ['C:\\x\\op.token', '/inheritance:r', '/grant:r', 'CORP\\ada:F', '/Q'],
    ]);
    expect(privateAclCommand('C:\\x', { domain: undefined, name: 'ada' }, 'dir')).toEqual(['icacls', ['C:\\x', '/inheritance:r', '/grant:r', 'ada:(OI)(CI)F', '/Q']]);
  });

  it('does nothing off Windows, and on Windows refuses to guess the user', () => {
    expect(() => restrictToUser('/nonexistent/file', 'file', 'linux', {})).not.toThrow();
    expect(() => restrictToUser('C:\\x', 'file', 'win32', {})).toThrow(/USERNAME is not set/);
  });
});

describe('stage commands per platform', () => {
  it('a command string runs in /bin/sh on POSIX and in cmd.exe (COMSPEC, verbatim, /d /s /c) on Windows; argv runs directly', () => {
    expect(stageLaunch('make test && echo ok', { platform: 'linux', env: {} })).toEqual({ file: '/bin/sh', args: ['-c', 'make test && echo ok'], verbatim: false });
    expect(stageLaunch('make test', { platform: 'darwin', env: {} }).file).toBe('/bin/sh');
    expect(stageLaunch('npm test && echo "ok done"', { platform: 'win32', env: { ComSpec: 'D:\\tools\\cmd.exe' } })).toEqual({
      file: 'D:\\tools\\cmd.exe',
      args: ['/d', '/s', '/c', '"npm test && echo "ok done""'],
      verbatim: true,
    });
    expect(stageLaunch('dir', { platform: 'win32', env: { SystemRoot: 'E:\\Win' } }).file).toBe('E:\\Win\\System32\\cmd.exe');
    for (const platform of ['linux', 'win32'] as const) {
      expect(stageLaunch(['node', 'a b.js'], { platform, env: {} })).toEqual({ file: 'node', args: ['a b.js'], verbatim: false });
    }
  });
});
