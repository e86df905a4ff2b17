import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { worktreeEnv } from '../../common/worktree-env';
import type { Limits } from '../../common/limits';
import { stripAnsi } from '../../common/ansi';
import { keyBytes } from '../../common/shell-keys';
import { PatternError } from '../../common/safe-pattern';
import type { CallContext, EngineContext, Feature } from '../room/index';
import { compilePatterns, waitForOutput, type CompiledPatterns } from './output-wait';
import { SHELLS_CHANGED, type ShellAttachment, type ShellRegistry } from './shell-registry';
import type { ShellViewer } from './shell-viewers';
import type { Watermarks } from './live-attachment';
import type { ShellView } from '../../common/methods/shells';
import type { PtyShell } from './pty-shell';
import { runInShell } from './shell-run';
import { viewOf } from './shell-view';
import { decodeCursor, encodeCursor, numberAt } from '../core/paging';
import { START_CURSOR } from '../../common/paging';
import { checkInputSize, exitedRefusal } from './live-attachment';

type ShellMethods = 'shell_open' | 'shell_io' | 'shell_run' | 'shell_close' | 'shell_list';

/** Shells on the room's other hosts (engine/hosts): known by id, reached through the host's room node. */
export interface RemoteShellPort {
  owns(id: string): boolean;
  open(caller: Caller, input: MethodInput<'shell_open'>): Promise<MethodOutputs['shell_open']>;
  /** Sends the input to the host; `local` reads and waits on the shell's copy here (fed by its stream). */
  io(caller: Caller, input: MethodInput<'shell_io'>, local: (session: PtyShell, input: MethodInput<'shell_io'>) => Promise<MethodOutputs['shell_io']>): Promise<MethodOutputs['shell_io']>;
  run(caller: Caller, input: MethodInput<'shell_run'>): Promise<MethodOutputs['shell_run']>;
  close(caller: Caller, input: MethodInput<'shell_close'>): Promise<MethodOutputs['shell_close']>;
  list(caller: Caller): Promise<ShellView[]>;
  /** The room's copy of a remote shell (its output, status and screen here), if the caller may see it. */
  session(caller: Caller, id: string): PtyShell;
  /** Hears a change the list of remote shells shows (a host became unreachable or reachable). */
  onChange(listener: () => void): void;
  /** A person's live view of a remote shell (its copy here): what they type goes to the host. */
  attach(caller: Caller, id: string, viewer: ShellViewer, from: number, watermarks?: Watermarks): ShellAttachment;
}

/** shell_open / shell_io / shell_close / shell_list over the room's shell registry. */
/**
 * The folder a shell naming a handoff starts in (its worktree, or `cwd` inside it) and the host it is on (null:
 * this machine; a shell for a handoff on a host is opened there): engine.ts builds it once.
 */
export type HandoffFolder = (caller: Caller, handoffId: string, cwd?: string) => { folder: string; host: string | null };

export function shellsFeature(ctx: EngineContext, shells: ShellRegistry, limits: Limits, handoffFolder: HandoffFolder, remote?: RemoteShellPort): Feature<ShellMethods> {
  const isRemote = (id: string) => remote?.owns(id) === true;
  remote?.onChange(() => shells.changes.fire(SHELLS_CHANGED));
  if (remote) shells.remoteSession = (caller, id) => (remote.owns(id) ? remote.session(caller, id) : null);
  if (remote) shells.remoteAttach = (caller, id, viewer, from, watermarks) => (remote.owns(id) ? remote.attach(caller, id, viewer, from, watermarks) : null);
  /** `mirror`: a remote shell's copy here (engine/hosts), its input already sent to the host. */
  async function io(caller: Caller, input: MethodInput<'shell_io'>, call: CallContext, mirror?: PtyShell): Promise<MethodOutputs['shell_io']> {
    // a wait on the status of another participant's terminal, and nothing else: allowed, and answered with its state only
    const statusOnly = input.wait?.until === 'status' && input.text === undefined && input.input === undefined && input.resize === undefined && input.cursor === undefined && input.format !== 'screen';
    const session = mirror ?? (statusOnly ? shells.watch(caller, input.shellId) : shells.get(caller, input.shellId));
    if (session.spec.owner !== caller.name && !caller.capabilities.includes('operate')) return watchStatus(session, input, call);
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

  /**
   * Another participant's terminal, watched: the wait on its status, and an answer that holds its state and when
   * it began, nothing of its output, screen, title or the words of its reason (those can quote what is on it).
   */
  async function watchStatus(session: PtyShell, input: MethodInput<'shell_io'>, call: CallContext): Promise<MethodOutputs['shell_io']> {
    const spec = input.wait;
    if (spec?.until !== 'status') throw new RoomError('INTERNAL', 'a watch is a status wait');
    const timeoutMs = Math.min(spec.timeoutMs ?? limits.shellDefaultWaitMs, limits.shellMaxWaitMs);
    const end = session.ring.end;
    const wait = await waitForOutput(session, end, spec, { timeoutMs, windowBytes: limits.shellWaitWindowBytes, signal: call.signal });
    const { state, since } = session.status.status;
    const here = encodeCursor('shell', session.id, [session.ring.end]);
    return { shellId: session.id, output: '', cursor: here, nextCursor: here, more: false, truncated: false, alive: session.alive, exit: session.exit, status: { state, since }, wait };
  }

  return {
    name: 'shells',
    handlers: {
      shell_open: (caller, input) => {
        const place = input.handoffId === undefined ? null : handoffFolder(caller, input.handoffId, input.cwd);
        if (place && (place.host !== null || input.host !== undefined)) {
          // a shell for a handoff runs where its worktree is: it inherits the handoff's host
          if (place.host !== (input.host ?? place.host)) {
            throw new RoomError('INVALID_INPUT', `handoff ${input.handoffId}'s worktree is ${place.host ? `on host ${place.host}` : 'on this machine'}, not on ${input.host}: open its shell without host (it goes where the worktree is)`);
          }
          if (!remote || place.host === null) throw new RoomError('UNAVAILABLE', 'this room process places no work on hosts');
          const { handoffId, ...open } = input;
          const there = { ...open, host: place.host, cwd: place.folder, env: { ...worktreeEnv(handoffId as string), ...open.env } };
          return remote.open(caller, there).then((out) => (shells.changes.fire(SHELLS_CHANGED), out));
        }
        if (input.host !== undefined) {
          if (!remote) throw new RoomError('UNAVAILABLE', 'this room process places no work on hosts');
          // the room's views re-read the list on this hint, as for a shell opened here
          return remote.open(caller, input).then((out) => (shells.changes.fire(SHELLS_CHANGED), out));
        }
        const { handoffId, host: _here, ...open } = input;
        // a shell in a worktree gets that worktree's own ports and name (what the shell is given explicitly wins)
        return { shell: viewOf(shells.open(caller, handoffId === undefined || !place ? open : { ...open, cwd: place.folder, env: { ...worktreeEnv(handoffId), ...open.env } })) };
      },
      shell_io: (caller, input, call) => (remote && isRemote(input.shellId) ? remote.io(caller, input, (mirror, read) => io(caller, read, call, mirror)) : io(caller, input, call)),
      shell_run: (caller, input, call) =>
        remote && isRemote(input.shellId) ? remote.run(caller, input) : runInShell(shells.get(caller, input.shellId), input, {
          timeoutMs: Math.min(input.timeoutMs ?? limits.shellDefaultWaitMs, limits.shellMaxWaitMs),
          promptWaitMs: limits.shellRunPromptWaitMs,
          maxBytes: input.maxBytes ?? limits.shellDefaultReadBytes,
          by: caller.name,
          now: () => ctx.now(),
          signal: call.signal,
        }),
      shell_close: async (caller, input) => {
        if (remote && isRemote(input.shellId)) return remote.close(caller, input).then((out) => (shells.changes.fire(SHELLS_CHANGED), out));
        const { exit, alreadyExited } = await shells.close(caller, input.shellId);
        return { shellId: input.shellId, exit, alreadyExited };
      },
      shell_list: async (caller) => ({ shells: remote ? [...shells.list(caller), ...(await remote.list(caller))] : shells.list(caller) }),
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
