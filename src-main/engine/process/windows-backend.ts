import { childProcess } from '../platform/child-process';
import type { ProcessBackend, ProcessIdentity, ProcessRow } from './process-table';

/**
 * Windows. There are no signals, no process groups, and another process's environment cannot be read without
 * native code, so a tree is found by parent links from its root (recorded when it was spawned) and ended with
 * `taskkill /T`. Windows never re-parents an orphan: its ParentProcessId still names the dead parent, so a
 * child that outlived its parent is still found — the creation time tells a real child (started after its
 * parent) from a process that merely got a recycled pid as its "parent" id. (A Job Object per shell/stage
 * would be airtight, but Node offers none without a native module.)
 *
 * The table comes from PowerShell's Win32_Process (wmic is gone from current Windows): one line per process,
 * `pid ppid creation-FILETIME`.
 */
export const WINDOWS_TABLE_SCRIPT =
  'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.ParentProcessId) $(if ($_.CreationDate) { $_.CreationDate.ToFileTimeUtc() } else { 0 })" }';

/** The argv that prints the process table. */
export function windowsTableCommand(): [string, string[]] {
  return ['powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', WINDOWS_TABLE_SCRIPT]];
}

/** FILETIME (100 ns since 1601) → ms since 1970, close enough to order processes. */
const FILETIME_EPOCH_MS = 11_644_473_600_000;

/** Parses the `pid ppid filetime` lines into rows (no tags, no groups on Windows). */
export function parseWindowsTable(text: string, selfPid: number = process.pid): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    // pid 0 (System Idle) and the caller itself are never part of a tree
    if (pid === 0 || pid === selfPid) continue;
    const fileTime = m[3] as string;
    rows.push({
      pid,
      ppid: Number(m[2]),
      pgid: 0,
      startTime: fileTime,
      startOrder: Number(BigInt(fileTime) / 10_000n) - FILETIME_EPOCH_MS,
      zombie: false,
      tag: null,
    });
  }
  return rows;
}

/**
 * The taskkill commands that end `targets`, given a fresh table: only targets still the same process (same
 * creation time) are named, each explicitly — `/T` alone would miss an orphan whose parent is gone. A polite
 * first step (no `/F`, which asks windows to close) for every signal but SIGKILL; SIGKILL forces.
 */
export function windowsKillCommands(targets: ProcessIdentity[], signal: NodeJS.Signals, table: ProcessRow[]): [string, string[]][] {
  const now = new Map(table.map((r) => [r.pid, r.startTime] as const));
  const pids = targets.filter((t) => now.get(t.pid) === t.startTime).map((t) => t.pid);
  if (pids.length === 0) return [];
  const args = ['/T', ...(signal === 'SIGKILL' ? ['/F'] : []), ...pids.flatMap((pid) => ['/PID', String(pid)])];
  return [['taskkill', args]];
}

function readTable(): ProcessRow[] {
  const [file, args] = windowsTableCommand();
  return parseWindowsTable(childProcess().execFileSync(file, args, { encoding: 'utf8', windowsHide: true, maxBuffer: 64 * 1024 * 1024 }));
}

function readTableAsync(): Promise<ProcessRow[]> {
  const [file, args] = windowsTableCommand();
  return new Promise((resolve, reject) => {
    childProcess().execFile(file, args, { encoding: 'utf8', windowsHide: true, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(parseWindowsTable(stdout));
    });
  });
}

export const windowsBackend: ProcessBackend = {
  name: 'windows',
  pollMs: 250, // each look starts PowerShell
  list: readTable,
  listAsync: readTableAsync,
  get: (pid) => readTable().find((r) => r.pid === pid) ?? null,
  signal(targets, signal) {
    for (const [file, args] of windowsKillCommands(targets, signal, readTable())) {
      try {
        childProcess().execFileSync(file, args, { windowsHide: true, stdio: 'ignore' });
      } catch {
        // taskkill exits non-zero when one of the pids is already gone; the next look decides
      }
    }
  },
};
