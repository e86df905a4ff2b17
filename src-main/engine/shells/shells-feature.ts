import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { Limits } from '../../common/limits';
import { stripAnsi } from '../../common/ansi';
import { keyBytes } from '../../common/shell-keys';
import { PatternError } from '../../common/safe-pattern';
import type { CallContext, EngineContext, Feature } from '../room/index';
import { compilePatterns, waitForOutput, type CompiledPatterns } from './output-wait';
import type { ShellRegistry } from './shell-registry';
import { runInShell } from './shell-run';
import { viewOf } from './shell-view';
import { decodeCursor, encodeCursor, numberAt } from '../core/paging';
import { START_CURSOR } from '../../common/paging';
import { checkInputSize, exitedRefusal } from './live-attachment';

type ShellMethods = 'shell_open' | 'shell_io' | 'shell_run' | 'shell_close' | 'shell_list';

/** shell_open / shell_io / shell_close / shell_list over the room's shell registry. */
/** The folder a shell naming a handoff starts in (its worktree, or `cwd` inside it): engine.ts builds it once. */
export type HandoffFolder = (caller: Caller, handoffId: string, cwd?: string) => string;

export function shellsFeature(ctx: EngineContext, shells: ShellRegistry, limits: Limits, handoffFolder: HandoffFolder): Feature<ShellMethods> {
  async function io(caller: Caller, input: MethodInput<'shell_io'>, call: CallContext): Promise<MethodOutputs['shell_io']> {
    const session = shells.get(caller, input.shellId);
    // everything is checked before any byte is sent: a refused call changes nothing
    const parts: string[] = [];
    if (input.text !== undefined) parts.push(input.text);
    // cursor keys depend on the mode the program set: let the screen mirror catch up with the output first
    if (input.input?.some((item) => 'key' in item)) await session.screen.settled();
    const modes = { applicationCursorKeys: session.screen.applicationCursorKeys };
    for (const item of input.input ?? []) parts.push('text' in item ? item.text : keyBytes(item.key, modes));
    const bytes = parts.join('');
    checkInputSize(bytes, limits);
    let patterns: CompiledPatterns | undefined;
    if (input.wait?.until === 'match') {
      try {
        patterns = compilePatterns(input.wait);
      } catch (error) {
        if (!(error instanceof PatternError)) throw error;
        throw new RoomError('INVALID_INPUT', `invalid wait pattern: ${error.message}`);
      }
    }
    if (bytes.length > 0 && !session.alive) {
      throw exitedRefusal(session);
    }

    const from = input.cursor === undefined ? undefined : shellOffset(input.cursor, session.id);
    const before = session.ring.end;
    if (input.resize) session.resize(input.resize.cols, input.resize.rows);
    if (bytes.length > 0) session.write(bytes, caller.name, ctx.now());

    let wait: MethodOutputs['shell_io']['wait'] = null;
    if (input.wait) {
      const timeoutMs = Math.min(input.wait.timeoutMs ?? limits.shellDefaultWaitMs, limits.shellMaxWaitMs);
      wait = await waitForOutput(session, from ?? before, input.wait, {
        timeoutMs,
        windowBytes: limits.shellWaitWindowBytes,
        signal: call.signal,
        ...(patterns ? { patterns } : {}),
      });
    }

    if (input.format === 'screen') {
      const shot = await session.screen.snapshot();
      const { lines, offset, ...screen } = shot;
      return { shellId: session.id, output: lines.join('\n'), cursor: encodeCursor('shell', session.id, [offset]), nextCursor: encodeCursor('shell', session.id, [offset]), more: false, truncated: false, alive: session.alive, exit: session.exit, status: session.status.status, wait, screen };
    }
    const read = session.readText(from ?? before, input.maxBytes ?? limits.shellDefaultReadBytes);
    return {
      shellId: session.id,
      output: input.format === 'raw' ? read.text : stripAnsi(read.text),
      cursor: encodeCursor('shell', session.id, [read.start]),
      nextCursor: encodeCursor('shell', session.id, [read.next]),
      more: read.more,
      truncated: read.truncated,
      alive: session.alive,
      exit: session.exit,
      status: session.status.status,
      wait,
    };
  }

  return {
    name: 'shells',
    handlers: {
      shell_open: (caller, input) => {
        const { handoffId, ...open } = input;
        return { shell: viewOf(shells.open(caller, handoffId === undefined ? open : { ...open, cwd: handoffFolder(caller, handoffId, open.cwd) })) };
      },
      shell_io: io,
      shell_run: (caller, input, call) =>
        runInShell(shells.get(caller, input.shellId), input, {
          timeoutMs: Math.min(input.timeoutMs ?? limits.shellDefaultWaitMs, limits.shellMaxWaitMs),
          promptWaitMs: limits.shellRunPromptWaitMs,
          maxBytes: input.maxBytes ?? limits.shellDefaultReadBytes,
          by: caller.name,
          now: () => ctx.now(),
          signal: call.signal,
        }),
      shell_close: async (caller, input) => {
        const { exit, alreadyExited } = await shells.close(caller, input.shellId);
        return { shellId: input.shellId, exit, alreadyExited };
      },
      shell_list: (caller) => ({ shells: shells.list(caller) }),
    },
    start: async (startup) => {
      const reaped = await shells.reapOrphans(startup.tagged);
      if (reaped > 0) console.error(`[shells] ended ${reaped} process(es) left by the shells of a runner that died`);
    },
    close: () => shells.closeAll(),
  };
}

/** The byte offset inside a shell_io cursor, which must be one this shell gave out. */
function shellOffset(cursor: string, shellId: string): number {
  if (cursor === START_CURSOR) return 0;
  const restart = 'read from where the output stands before your input';
  return numberAt(decodeCursor(cursor, 'shell', shellId, restart), 0, restart);
}
