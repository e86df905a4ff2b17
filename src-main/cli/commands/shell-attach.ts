import { StringDecoder } from 'node:string_decoder';
import type { ShellView } from '../../common/methods/shells';
import { RoomError } from '../../common/errors';
import { findRunningRoom } from '../../engine/index';
import { noExtra, UsageError } from '../args';
import type { CeCommand } from '../command';
import { EXIT } from '../exit-codes';
import type { ShellLink } from '../shell-link';
import { withoutTerminalReplies } from '../terminal-replies';

/** Ctrl-] (as telnet and `docker attach`): it is not otherwise useful in a shell, unlike Ctrl-B (tmux's prefix). */
const DETACH_BYTE = 0x1d;
/** How much recent output is replayed on attach, to redraw what the screen showed. */
const REPLAY_BYTES = 256 * 1024;
/** Input per shell_io call, in UTF-16 units (the door takes at most 64 KiB of UTF-8 per call). */
const INPUT_CHUNK = 16 * 1024;
/**
 * What a program in the shell may have left switched on in the person's terminal (alternate screen, hidden
 * cursor, mouse reporting, bracketed paste, application keys, colours): switched off when ce lets go.
 */
const TERMINAL_RESET = '\x1b[0m\x1b[?25h\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>';

function pickShell(shells: ShellView[], target: string): ShellView {
  const byId = shells.find((s) => s.id === target);
  if (byId) return byId;
  const named = shells.filter((s) => s.name === target);
  const alive = named.filter((s) => s.alive);
  const pool = alive.length > 0 ? alive : named;
  if (pool.length === 1) return pool[0] as ShellView;
  if (pool.length > 1) throw new UsageError(`${pool.length} shells are named ${JSON.stringify(target)}: attach by id (${pool.map((s) => s.id).join(', ')})`);
  const known = shells.map((s) => `${s.name} (${s.id})`).join(', ');
  throw new RoomError('NOT_FOUND', `no shell ${JSON.stringify(target)} in this room${known ? `; its shells: ${known}` : ': open one with shell_open, or "+ New shell" in the app'}`);
}

/** A live terminal: the person's keys go to the shell, its output to the person's screen, until detach or exit. */
function attach(link: ShellLink, shell: ShellView, sizes: boolean): Promise<number> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  return new Promise<number>((resolve) => {
    let done = false;
    let queue = '';
    let sending = false;
    const decoder = new StringDecoder('utf8');

    const finish = (message: string, code: number) => {
      if (done) return;
      done = true;
      stdin.off('data', onInput);
      stdout.off('resize', onResize);
      for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      stdout.write(TERMINAL_RESET);
      process.stderr.write(`\r\n${message}\r\n`);
      link.close();
      resolve(code);
    };

    const pump = async () => {
      if (sending) return;
      sending = true;
      while (queue.length > 0 && !done) {
        let end = Math.min(queue.length, INPUT_CHUNK);
        const last = queue.charCodeAt(end - 1);
        if (end < queue.length && last >= 0xd800 && last <= 0xdbff) end--; // never split a surrogate pair
        const text = queue.slice(0, end);
        queue = queue.slice(end);
        try {
          await link.call('shell_io', { shellId: shell.id, text, maxBytes: 1 });
        } catch (error) {
          finish(`[ce: the shell refused input: ${(error as Error).message}]`, EXIT.refused);
        }
      }
      sending = false;
    };

    const onInput = (chunk: Buffer) => {
      const at = chunk.indexOf(DETACH_BYTE);
      queue += withoutTerminalReplies(decoder.write(at < 0 ? chunk : chunk.subarray(0, at)));
      void pump();
      if (at >= 0) finish(`[detached from ${shell.name}; "ce shell attach ${shell.name}" to come back]`, EXIT.ok);
    };

    const onResize = () => {
      if (!sizes) return;
      const cols = Math.min(1000, Math.max(2, stdout.columns || 80));
      const rows = Math.min(500, Math.max(2, stdout.rows || 24));
      link.call('shell_io', { shellId: shell.id, resize: { cols, rows }, maxBytes: 1 }).catch(() => undefined);
    };

    const onSignal = (signal: NodeJS.Signals) => finish(`[ce: ${signal}: detached from ${shell.name}]`, EXIT.ok);

    link.on((message) => {
      if (done || !('shellId' in message) || message.shellId !== shell.id) return;
      if (message.t === 'shell.data') {
        const bytes = message.data;
        // acknowledged once the terminal took it: the room process sends more only as fast as we draw
        stdout.write(bytes, () => link.send({ t: 'shell.ack', shellId: shell.id, bytes: bytes.length }));
      } else if (message.t === 'shell.exit') {
        const how = message.signal ? `killed by ${message.signal}` : `exited with code ${message.exitCode}`;
        finish(`[shell ${shell.name} ${how}]`, EXIT.ok);
      } else if (message.t === 'shell.error') {
        finish(`[ce: ${message.error.message}]`, EXIT.refused);
      }
    });
    link.onClose((error) => finish(`[ce: ${error.message}]`, EXIT.refused));

    const keeps = sizes ? '' : `; it keeps ${shell.owner}'s size, ${shell.cols}x${shell.rows} (--take-over resizes it to this terminal)`;
    process.stderr.write(`[attached to ${shell.name} (${shell.id}); detach with Ctrl-]${keeps}]\r\n`);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onInput);
    stdout.on('resize', onResize);
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
    onResize();
    link.send({ t: 'shell.attach', shellId: shell.id, from: Math.max(0, shell.outputBytes - REPLAY_BYTES) });
  });
}

export const SHELL_ATTACH_COMMAND: CeCommand = {
  name: 'shell',
  synopsis: ['ce shell attach NAME|ID [--take-over]'],
  options: { 'take-over': { type: 'boolean', help: "resize the shell to your terminal even when someone else (an agent) opened it: its programs see the new size" } },
  summary: 'a live terminal on a shell of the running room process, in your own terminal (like tmux attach)',
  details: [
    'Your keys go to the shell and its output to your screen, as in the app; the shell takes your terminal\'s',
    'size (and follows it when you resize the window) when it is yours; an agent\'s shell keeps the size the agent',
    'gave it unless you say --take-over. Detach with Ctrl-] : the shell keeps running, and',
    '"ce shell attach" again comes back to it. When the shell exits, ce says how and ends. Either way your',
    'terminal is restored (raw mode off, and any alternate screen, mouse or paste mode a program left on).',
    'Needs a terminal and a running room process ("commonroom serve" or the app); it types as the operator.',
  ],
  examples: ['ce shells', 'ce shell attach build', 'ce shell attach sh_4f2a…'],
  async run(args, room) {
    const [, sub, target] = args.positional;
    if (sub !== 'attach') throw new UsageError(`ce shell ${sub ?? ''}: the only subcommand is attach (ce shell attach NAME|ID); "ce shells" lists them`);
    if (!target) throw new UsageError('ce shell attach NAME|ID: say which shell (see "ce shells")');
    noExtra(args, 3);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UsageError('ce shell attach needs a terminal (stdin and stdout): to drive a shell from a script, use the shell_io tool');
    }
    const running = findRunningRoom(room);
    if (!running) throw new RoomError('UNAVAILABLE', 'no room process is running for this room: shells live only inside one (start it with "commonroom serve")');
    // loaded here, not at start: the WebSocket client is for this command only
    const { ShellLink } = await import('../shell-link');
    const link = await ShellLink.open(running.endpoint, running.token);
    try {
      const { shells } = await link.call('shell_list', {});
      const shell = pickShell(shells, target);
      // watching does not resize someone else's shell (an agent's programs would see your terminal's size)
      const { participants } = await link.call('participant_list', {});
      const operator = participants.find((p) => p.role === 'operator')?.name ?? 'operator';
      return await attach(link, shell, shell.owner === operator || Boolean(shell.agent) || args.flags['take-over'] === true);
    } finally {
      link.close();
    }
  },
};
