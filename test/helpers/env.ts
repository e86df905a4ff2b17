import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Paths } from '../../src-main/engine/core/config';
import { processBackend } from '../../src-main/engine/process/process-tree';

/** A private data and config folder per test: nothing touches the real user's rooms or tokens. */
export interface TestHome {
  root: string;
  paths: Paths;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/**
 * `base`: where the folder is made (default the system's temporary folder). A folder under /tmp has a parent
 * anyone may write, which some clients refuse to read settings from (Gemini CLI): give one in the user's home.
 */
export function makeHome(base: string = os.tmpdir()): TestHome {
  fs.mkdirSync(base, { recursive: true });
  const root = fs.mkdtempSync(path.join(base, 'commonroom-test-'));
  const paths = { dataDir: path.join(root, 'data'), configDir: path.join(root, 'config') };
  return {
    root,
    paths,
    env: { ...process.env, COMMONROOM_DATA_DIR: paths.dataDir, COMMONROOM_CONFIG_DIR: paths.configDir, COMMONROOM_ROOM: '' },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
}

export const REPO = path.resolve(import.meta.dirname, '../..');
export const BIN_COMMONROOM = path.join(REPO, 'bin/commonroom.js');
export const BIN_CE = path.join(REPO, 'bin/ce.js');

/**
 * The pid a test process wrote with `echo $$ > FILE`, once the whole line is there: the shell creates the file
 * before it writes, so a file that exists may still be empty (read then, it was pid 0).
 */
export async function waitForPidFile(file: string, timeoutMs = 4000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (text.endsWith('\n') && Number(text) > 0) return Number(text);
    if (Date.now() > deadline) throw new Error(`${file} held no pid after ${timeoutMs} ms (${JSON.stringify(text)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The parent of a live process (for a stage: the spawner helper that started it), read from the process table. */
export function parentPid(pid: number): number {
  const ppid = processBackend().get(pid)?.ppid;
  if (ppid === undefined) throw new Error(`process ${pid} is gone`);
  return ppid;
}

/**
 * The pid, as this machine sees it, of the live process one of whose arguments is `marker`. An agent's shells
 * and stages run in a sandbox with a pid namespace of its own, so the `$$` they write is not a pid out here:
 * give the process a unique argument (`exec sleep 300.1234`) and find it by that instead.
 */
export async function waitForProcessWith(marker: string, timeoutMs = 8000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let argv: string[];
      try {
        argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      } catch {
        continue;
      }
      if (argv.includes(marker)) return Number(entry);
    }
    if (Date.now() > deadline) throw new Error(`no process with the argument ${marker} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A unique `sleep` duration, to find that sleep with waitForProcessWith. */
export function markedSleep(): string {
  return `3000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}
