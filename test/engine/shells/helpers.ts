import fs from 'node:fs';
import type { MethodInput, MethodOutputs } from '../../../src-main/common/contract';
import type { Caller } from '../../../src-main/common/dto';
import type { Limits } from '../../../src-main/common/limits';
import { Engine } from '../../../src-main/engine/engine';
import { Room } from '../../../src-main/engine/room/room';
import { makeHome, type TestHome } from '../../helpers/env';
import { decodeCursor } from '../../../src-main/engine/core/paging';

/** A real engine on a real room in a temp home, with a predictable bash for shells. */
export interface ShellBench {
  home: TestHome;
  engine: Engine;
  operator: Caller;
  open(extra?: Partial<MethodInput<'shell_open'>>, as?: Caller): Promise<MethodOutputs['shell_open']['shell']>;
  io(input: MethodInput<'shell_io'>, as?: Caller): Promise<MethodOutputs['shell_io']>;
  close(): Promise<void>;
}

export const BASH = { shell: '/bin/bash', args: ['--noprofile', '--norc'], env: { PS1: 'PROMPT> ', HISTFILE: '/dev/null' } };

export async function shellBench(limits: Partial<Limits> = {}, home: TestHome = makeHome()): Promise<ShellBench> {
  const engine = await Engine.start(Room.open({ paths: home.paths }), limits);
  const operator = engine.operator();
  return {
    home,
    engine,
    operator,
    open: async (extra = {}, as = operator) => {
      const { shell } = await engine.call(as, 'shell_open', { ...BASH, ...extra });
      // text typed before the first prompt is echoed ahead of it and the prompt lands inside the command's output:
      // a test types only once its shell is ready (a test that opens another shell or prompt waits on its own)
      if (extra.shell === undefined && extra.env === undefined && extra.args === undefined) await waitForPrompt(engine, as, shell.id);
      return shell;
    },
    io: (input, as = operator) => engine.call(as, 'shell_io', input),
    close: async () => {
      await engine.close();
      home.cleanup();
    },
  };
}

/** Waits until the bench's bash has printed its first prompt (from the start of its output). */
export async function waitForPrompt(engine: Engine, as: Caller, shellId: string): Promise<void> {
  const r = await engine.call(as, 'shell_io', { shellId, cursor: 'start', wait: { until: 'match', pattern: 'PROMPT> ', timeoutMs: 30_000 } });
  if (r.wait?.reason !== 'matched') throw new Error(`shell ${shellId} printed no prompt: ${r.wait?.reason}; output so far: ${r.output.slice(0, 200)}`);
}

/** Open descriptors of this process (PTY masters among them). */
export function openFds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/** Children of this process that exited and were never reaped. */
export function zombieChildren(): number[] {
  const zombies: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === process.pid) zombies.push(Number(name));
    } catch {
      // gone
    }
  }
  return zombies;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The byte offset inside a shell_io cursor (tests compare positions; agents treat cursors as opaque). */
export function offsetOf(cursor: string, shellId: string): number {
  return Number(decodeCursor(cursor, 'shell', shellId, 'start again')[0]);
}
