import type { LineConnection, LineExtras } from '../api/line-door';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { NODE_STREAM_HIGH, NODE_STREAM_LOW } from '../common/node-stream';
import { encodeOutputFrame } from '../engine/index';
import type { DoorEngine, ShellAttachment } from '../engine/index';

/**
 * A room node's shells streamed to the room that placed them (docs/hosts.md): `shell_stream` {shellId, from,
 * frames: "binary"} pushes the shell's output from byte offset `from` as binary frames between the lines of the
 * connection (common/node-stream.ts: no JSON, no base64, one copy), and the room acknowledges what it took with
 * `shell_stream_ack` notices. A room that does not ask for frames (older than protocol 2) gets JSON lines of
 * base64, as before. It is a live view of the shell like the app's
 * (engine/shells/shell-viewers.ts): at most NODE_STREAM_HIGH bytes go unacknowledged, and a room that stops
 * acknowledging (its reader is slow) holds the PTY, so the program writing blocks instead of output being lost.
 *
 *   node → room   0x00 kind length offset id data                                  (a frame; kind 2: output before `offset` was lost)
 *   node → room   {"stream":{"shellId":"…","offset":0,"data":"<base64>"}}        (the same without frames; "gap":true)
 *   node → room   {"stream":{"shellId":"…","exit":{"exitCode":0,"signal":null},"end":1234}}
 *   room → node   {"method":"shell_stream_ack","params":{"shellId":"…","bytes":65536}}   (no id: no answer)
 *
 * A stream whose connection dropped stays attached a while (KEEP_MS), unacknowledged, and keeps holding the
 * PTY for HOLD_MS (a program writing more than the node's scrollback blocks), so a link that comes back soon
 * resumes with nothing lost; after that the program runs on and the node's scrollback keeps the newest output.
 * Output older than that scrollback when the stream restarts is gone: the first line says `gap`, and its offset
 * says how much (the room reports it: a `host.output_lost` event, and `truncated` to its readers).
 */
const KEEP_MS = 30_000;
const HOLD_MS = 10_000;


export function nodeStreamMethods(engine: DoorEngine): LineExtras {
  /** The stream of each shell (one room per node: one stream per shell), and the connection it is on. */
  const streams = new Map<string, Stream>();
  const ended = new WeakSet<LineConnection>();
  type Stream = { attachment: ShellAttachment; connection: LineConnection; orphaned?: NodeJS.Timeout; holding?: NodeJS.Timeout };
  const end = (s: Stream | undefined) => {
    if (!s) return;
    clearTimeout(s.orphaned);
    clearInterval(s.holding);
    s.attachment.detach();
  };
  const stop = (shellId: string) => {
    end(streams.get(shellId));
    streams.delete(shellId);
  };
  const watched = new WeakSet<LineConnection>();
  const watch = (connection: LineConnection) => {
    if (watched.has(connection)) return;
    watched.add(connection);
    connection.onEnd(() => {
      ended.add(connection);
      for (const [shellId, s] of streams) {
        if (s.connection !== connection) continue;
        s.orphaned = setTimeout(() => streams.get(shellId) === s && stop(shellId), KEEP_MS);
        s.orphaned.unref();
        // a silent viewer stops holding after the shell's stall time: this one is kept holding for HOLD_MS
        const since = Date.now();
        s.holding = setInterval(() => (Date.now() - since < HOLD_MS ? s.attachment.ack(0) : clearInterval(s.holding)), 500);
        s.holding.unref();
      }
    });
  };
  return {
    shell_stream: async (caller: Caller, params: unknown, connection: LineConnection) => {
      const { shellId, from, frames } = (params ?? {}) as { shellId?: unknown; from?: unknown; frames?: unknown };
      if (typeof shellId !== 'string' || typeof from !== 'number' || !Number.isSafeInteger(from) || from < 0) {
        throw new RoomError('INVALID_INPUT', 'shell_stream: give shellId and from (a byte offset)');
      }
      const shell = engine.shells.get(caller, shellId);
      watch(connection);
      // the stream it replaces goes after this one is attached: with no viewer in between, the ring's line cap
      // would let go of the lines it kept for it
      const replaced = streams.get(shellId);
      const send = (value: unknown) => ended.has(connection) || connection.send(value);
      const binary = frames === 'binary';
      const attachment = engine.attachShell(
        caller,
        shellId,
        {
          // handed views of the ring (valid during the call): each is copied once, into its frame or its base64
          borrows: true,
          onData: (bytes, offset, truncated) => {
            if (ended.has(connection)) return;
            if (binary) connection.sendBytes(encodeOutputFrame(shellId, offset, bytes, truncated));
            else send({ stream: { shellId, offset, data: bytes.toString('base64'), ...(truncated ? { gap: true } : {}) } });
          },
          // the room holds the exit until its copy reached `end`: bytes still unacknowledged come after this line
          onExit: (exit) => send({ stream: { shellId, exit, end: shell.ring.end } }),
        },
        from,
        // what is unacknowledged stays in the ring (its PTY held for it): a link that drops resends it
        { high: NODE_STREAM_HIGH, low: NODE_STREAM_LOW, resends: true },
      );
      streams.set(shellId, { attachment, connection });
      end(replaced);
      // an exited shell's viewer hears no exit: say it here, after whatever it still has to send
      if (shell.exit) send({ stream: { shellId, exit: shell.exit, end: shell.ring.end } });
      return { shellId, end: shell.ring.end, start: shell.ring.start, ...(binary ? { frames: 'binary' } : {}) };
    },
    shell_stream_ack: async (_caller: Caller, params: unknown, connection: LineConnection) => {
      const { shellId, bytes } = (params ?? {}) as { shellId?: unknown; bytes?: unknown };
      if (typeof shellId !== 'string' || typeof bytes !== 'number') return null;
      const s = streams.get(shellId);
      if (s?.connection === connection) s.attachment.ack(bytes);
      return null;
    },
  };
}
