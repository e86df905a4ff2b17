import fs from 'node:fs';

/** Linux system call numbers (x86-64, arm64) of a read and of the select family, as /proc/<pid>/syscall gives them. */
const READ_CALLS: Partial<Record<string, number[]>> = { x64: [0], arm64: [63] };
const SELECT_CALLS: Partial<Record<string, number[]>> = { x64: [23, 270], arm64: [72] };

/**
 * Whether the job in the foreground of `shellPid`'s terminal sleeps waiting for keys on that terminal and nothing
 * else: its leader blocked in a read of the terminal, or in a select over descriptors that are all the terminal
 * (Python's REPL and vim at rest; `sleep`, a build or a server waiting on a socket are not). Read from Linux's
 * /proc (the job's own system call, as the kernel reports it); elsewhere, or when /proc will not say, false.
 */
export function waitsForKeys(shellPid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${shellPid}/stat`, 'utf8');
    const tpgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]); // after "pid (comm) ": state ppid pgrp session tty_nr tpgid
    if (!(tpgid > 0) || tpgid === shellPid) return false;
    const terminal = fs.readlinkSync(`/proc/${shellPid}/fd/0`);
    const [nr, ...args] = fs.readFileSync(`/proc/${tpgid}/syscall`, 'utf8').trim().split(' ');
    const call = Number(nr);
    const isTerminal = (fd: number): boolean => {
      try {
        return fs.readlinkSync(`/proc/${tpgid}/fd/${fd}`) === terminal;
      } catch {
        return false; // not open
      }
    };
    if (READ_CALLS[process.arch]?.includes(call)) return isTerminal(Number(args[0]));
    if (SELECT_CALLS[process.arch]?.includes(call)) {
      const count = Number(args[0]);
      if (!(count > 0 && count <= 64)) return false;
      const open = Array.from({ length: count }, (_, fd) => fd).filter((fd) => fs.existsSync(`/proc/${tpgid}/fd/${fd}`));
      return open.length > 0 && open.every(isTerminal);
    }
    return false;
  } catch {
    return false;
  }
}
