import { describe, expect, it } from 'vitest';
import { chooseBackend } from '../../src-main/engine/process/process-tree';
import type { ProcessRow } from '../../src-main/engine/process/process-table';
import { parsePsListing, psListArgs, psPidsArgs, tagFromPsArgs } from '../../src-main/engine/process/ps-backend';
import { treeMembers } from '../../src-main/engine/process/tree-members';
import { parseWindowsTable, windowsKillCommands, windowsTableCommand } from '../../src-main/engine/process/windows-backend';

/** Pure decisions of the process-tree backends; the real processes are in process-tree.test.ts (run per backend). */

function row(pid: number, ppid: number, startOrder: number, extra: Partial<ProcessRow> = {}): ProcessRow {
  return { pid, ppid, pgid: 0, startTime: String(startOrder), startOrder, zombie: false, tag: null, ...extra };
}

describe('choosing a backend', () => {
  it('follows the platform, and COMMONROOM_PROCESS_BACKEND where it can work', () => {
    expect(chooseBackend('linux', {}, true)).toBe('proc');
    expect(chooseBackend('linux', {}, false)).toBe('ps');
    expect(chooseBackend('darwin', {}, false)).toBe('ps');
    expect(chooseBackend('freebsd', {}, false)).toBe('ps');
    expect(chooseBackend('win32', {}, false)).toBe('windows');
    expect(chooseBackend('linux', { COMMONROOM_PROCESS_BACKEND: 'ps' }, true)).toBe('ps');
    expect(chooseBackend('linux', { COMMONROOM_PROCESS_BACKEND: 'proc' }, true)).toBe('proc');
  });

  it('refuses a backend that cannot work here, saying what to do', () => {
    expect(() => chooseBackend('darwin', { COMMONROOM_PROCESS_BACKEND: 'proc' }, false)).toThrow(/needs \/proc.*unset it/);
    expect(() => chooseBackend('win32', { COMMONROOM_PROCESS_BACKEND: 'ps' }, false)).toThrow(/does not work on Windows/);
    expect(() => chooseBackend('linux', { COMMONROOM_PROCESS_BACKEND: 'windows' }, true)).toThrow(/must be proc or ps/);
  });
});

describe('ps listings', () => {
  it('asks for the environment the way each ps spells it', () => {
    expect(psListArgs('darwin')).toEqual(['-A', '-E', '-ww', '-o', 'pid=,ppid=,pgid=,stat=,lstart=,args=']);
    expect(psListArgs('linux')).toEqual(['-A', 'e', '-ww', '-o', 'pid=,ppid=,pgid=,stat=,lstart=,args=']);
    expect(psPidsArgs([4, 9])).toEqual(['-p', '4,9', '-o', 'pid=,ppid=,pgid=,stat=,lstart=']);
  });

  it('parses pid, parent, group, state, start time and the tag from the environment', () => {
    const text = [
      '    1     0     1 Ss   Mon Nov 30 17:45:27 2026 /sbin/launchd',
      '  812   700   812 S+   Tue Dec  1 09:03:04 2026 sleep 300 HOME=/Users/a COMMONROOM_PROC_TAG=r1:stage:g:a:1 PATH=/bin',
      '  813   812   812 Z    Tue Dec  1 09:03:05 2026 (sh)',
      '  900   812   900 S    Tue Dec  1 09:03:05 2026 grep COMMONROOM_PROC_TAG=fake TERM=xterm',
      ' 4242     1  4242 S    Tue Dec  1 09:03:05 2026 node runner',
      'garbage line',
    ].join('\n');
    const rows = parsePsListing(text, 4242);
    expect(rows.map((r) => r.pid)).toEqual([1, 812, 813, 900]); // the caller itself is never listed
    const r812 = rows[1] as ProcessRow;
    expect(r812).toMatchObject({ ppid: 700, pgid: 812, zombie: false, tag: 'r1:stage:g:a:1', startTime: 'Tue Dec 1 09:03:04 2026' });
    expect(rows[2]?.zombie).toBe(true);
    expect((rows[3] as ProcessRow).startOrder).toBeGreaterThan(r812.startOrder);
  });

  it('takes the last tag word: the environment follows the arguments', () => {
    expect(tagFromPsArgs('sh -c echo COMMONROOM_PROC_TAG=argv HOME=/ COMMONROOM_PROC_TAG=real:1')).toBe('real:1');
    expect(tagFromPsArgs('sleep 5 XCOMMONROOM_PROC_TAG=no')).toBeNull();
    expect(tagFromPsArgs('sleep 5')).toBeNull();
  });
});

describe('tree membership', () => {
  const table = [
    row(100, 1, 10, { tag: 't:1', pgid: 100 }),
    row(101, 100, 11, { tag: 't:1', pgid: 100 }),
    row(102, 1, 12, { tag: 't:1', pgid: 102 }), // setsid + double fork: re-parented to init, kept its tag
    row(103, 101, 13, { pgid: 103 }), // env -i: lost its tag, still a child
    row(104, 100, 5), // claims parent 100 but started before it: a recycled-pid link, not a child
    row(200, 1, 20, { tag: 't:2' }),
    row(300, 1, 30, { tag: 't:10' }),
    row(301, 1, 31, { tag: 't:1', zombie: true }),
  ];

  it('takes the tag, the group, the root and their descendants, never an older "child" or a zombie', () => {
    expect(treeMembers(table, { tag: 't:1' }).map((r) => r.pid).sort()).toEqual([100, 101, 102, 103]);
    expect(treeMembers(table, { tag: 'none', pgid: 100 }).map((r) => r.pid).sort()).toEqual([100, 101, 103]);
    expect(treeMembers(table, { tag: 'none', root: { pid: 101, startTime: '11' } }).map((r) => r.pid).sort()).toEqual([101, 103]);
    expect(treeMembers(table, { tag: 'none', root: { pid: 101, startTime: '99' } })).toEqual([]);
    expect(treeMembers(table, { tag: 't:1', prefix: true }).map((r) => r.pid).sort()).toEqual([100, 101, 102, 103, 300]);
  });
});

describe('windows decisions', () => {
  // pid ppid creation-FILETIME, as the PowerShell command prints them
  const output = [
    '0 0 0',
    '4 0 133000000000000000',
    '5000 4 133900000000000000', // the runner
    '6000 5000 133900000010000000', // a stage's shell
    '6100 6000 133900000020000000', // its child
    '6200 6050 133900000030000000', // child of 6050, a grandchild whose parent (a child of 6000) already exited
    '7000 6000 133800000000000000', // names 6000 as parent but is older: 6000 is a recycled pid for it
    '8000 5000 133900000040000000', // another stage
    '',
  ].join('\r\n');

  it('prints the table with PowerShell, not wmic', () => {
    const [file, args] = windowsTableCommand();
    expect(file).toBe('powershell.exe');
    expect(args.join(' ')).toContain('Get-CimInstance Win32_Process');
  });

  it('parses the table, leaving out pid 0 and the caller', () => {
    const rows = parseWindowsTable(output, 5000);
    expect(rows.map((r) => r.pid)).toEqual([4, 6000, 6100, 6200, 7000, 8000]);
    expect(rows.every((r) => r.tag === null && r.pgid === 0)).toBe(true);
    expect(rows[1]?.startTime).toBe('133900000010000000');
  });

  it('finds the tree by parent links from its root, orphans of a dead member included, recycled links not', () => {
    const rows = parseWindowsTable(output, 5000);
    const root = { pid: 6000, startTime: '133900000010000000' };
    expect(treeMembers(rows, { tag: 'x', root }).map((r) => r.pid).sort()).toEqual([6000, 6100]);
    // 6050 was seen as a member on an earlier look; it is gone now, its child is still ours
    const known = [{ pid: 6050, startOrder: (rows[1]?.startOrder ?? 0) + 1 }];
    expect(treeMembers(rows, { tag: 'x', root }, known).map((r) => r.pid).sort()).toEqual([6000, 6100, 6200]);
  });

  it('names every member explicitly to taskkill /T, polite first and /F for SIGKILL, skipping a recycled pid', () => {
    const rows = parseWindowsTable(output, 5000);
    const targets = [
      { pid: 6000, startTime: '133900000010000000' },
      { pid: 6100, startTime: '133900000020000000' },
      { pid: 8000, startTime: '1' }, // same pid, other process now
      { pid: 9999, startTime: '2' }, // gone
    ];
    expect(windowsKillCommands(targets, 'SIGTERM', rows)).toEqual([['taskkill', ['/T', '/PID', '6000', '/PID', '6100']]]);
    expect(windowsKillCommands(targets, 'SIGKILL', rows)).toEqual([['taskkill', ['/T', '/F', '/PID', '6000', '/PID', '6100']]]);
    expect(windowsKillCommands(targets.slice(2), 'SIGKILL', rows)).toEqual([]);
  });
});
