import type net from 'node:net';
import { RoomError, ERROR_CODES, type ErrorCode } from '../../common/errors';
import { LINE_PROTOCOL } from '../../common/node-stream';
import type { OutputFrame } from './stream-frames';
import { ensureOwnDir } from '../core/fs-safe';
import { LinkReader } from './link-reader';
import { connectForwarded, forwardablePath } from './node-forward';
import { relayConn, socketConn, type Conn, type ConnEvents } from './node-conn';
import { sshEnv, type SshTarget } from './ssh';

/**
 * The person's room's side of one host's room node: `ssh HOST` running the node relay in the host's login shell
 * (for its PATH), the line protocol (api/line-door.ts) over its standard input and output. Connected lazily on
 * the first call; a connection that drops fails the calls in flight with "unreachable" and the next call
 * connects again — to the same node, which kept running (its shells did not notice).
 */
export interface LinkState {
  state: 'connected' | 'connecting' | 'unreachable' | 'idle';
  since: string;
  /** Why it is unreachable, in words (ssh's last line). */
  error: string | null;
  /** The node's pid and room id, from its hello. */
  node: { pid: number; room: string; version: string } | null;
}

type Hello = { protocol?: unknown; pid: number; room: string; version: string };

/** What a shell's output stream (server/node-streams.ts) hands its listener here, line by line. */
export interface StreamListener {
  data(offset: number, bytes: Buffer, gap: boolean): void;
  exit(exit: { exitCode: number | null; signal: string | null }, end: number): void;
  /** The connection dropped: the stream is gone (restart it from the last offset received). */
  dropped(): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

const HELLO_TIMEOUT_MS = 30_000;
/** How long the node has to say where its socket is (unanswered: the relay stays, the link works as it did). */
const SOCKET_ANSWER_MS = 10_000;
const timeout = (ms: number) =>
  new Promise<never>((_resolve, reject) => setTimeout(() => reject(new RoomError('INTERNAL', 'no answer')), ms).unref());

export class NodeLink {
  private conn: Conn | null = null;
  private ready: Promise<void> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Shell output streams on this connection, by shell id. */
  private readonly streams = new Map<string, StreamListener>();
  /** Why this side ended the connection (an old node, a frame it cannot read): said instead of ssh's last line. */
  private refused: string | null = null;
  private stderr = '';
  private linkState: LinkState;
  /** The node's socket on the host (its answer to node_socket), once known: later connections go to it straight. */
  private nodeSocket: string | null = null;
  /**
   * Whether to reach the node through the master's forward (node-forward.ts) rather than the relay: until the
   * host shows it cannot (an older node, an sshd that refuses streamlocal forwarding). COMMONROOM_HOST_LINK=relay
   * keeps the relay (a comparison, or a host's forwarding misbehaving).
   */
  private direct = process.env.COMMONROOM_HOST_LINK !== 'relay';
  /** Relay connections ended because the link moved to the forward: their end is no drop. */
  private readonly moved = new WeakSet<Conn>();
  constructor(
    private readonly target: SshTarget,
    /** The room this link serves: the node keeps one small room per serving room (`--for`). */
    private readonly roomKey: string,
    private readonly now: () => string,
    private readonly onState: (state: LinkState) => void = () => {},
  ) {
    this.linkState = { state: 'idle', since: now(), error: null, node: null };
  }

  /** How ssh reaches the host (for a `git fetch` over the same shared connection). */
  get sshTarget(): SshTarget {
    return this.target;
  }

  get state(): LinkState {
    return this.linkState;
  }

  private setState(next: Omit<LinkState, 'since'>): void {
    const changed = next.state !== this.linkState.state;
    this.linkState = { ...next, since: changed ? this.now() : this.linkState.since };
    if (changed) this.onState(this.linkState);
  }

  /** Calls a contract method on the node (as `as`, a participant of the node's room, or its operator). */
  async call<T>(method: string, params: unknown, as?: string): Promise<T> {
    await this.connect();
    return this.request<T>(method, params, as);
  }

  private request<T>(method: string, params: unknown, as?: string): Promise<T> {
    const conn = this.conn;
    if (!conn) return Promise.reject(this.unreachable());
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    conn.write(`${JSON.stringify({ id, method, params, ...(as ? { as } : {}) })}\n`);
    return answer as Promise<T>;
  }

  /** Sends a notice (no answer): a stream's acknowledgement. Dropped when not connected (the stream is gone then too). */
  notify(method: string, params: unknown): void {
    if (this.conn && this.linkState.state === 'connected') this.conn.write(`${JSON.stringify({ method, params })}\n`);
  }

  /**
   * Starts a shell's output stream from `from` (as `as`), its lines handed to `listener` until the connection
   * drops (`dropped`) or it is started again. What the node answers: its scrollback's range now.
   */
  async stream(shellId: string, from: number, listener: StreamListener, as?: string): Promise<{ start: number; end: number }> {
    await this.connect();
    this.streams.set(shellId, listener);
    try {
      return await this.call<{ start: number; end: number }>('shell_stream', { shellId, from, frames: 'binary' }, as);
    } catch (error) {
      if (this.streams.get(shellId) === listener) this.streams.delete(shellId);
      throw error;
    }
  }

  /** Stops handing a shell's stream to its listener (a closed shell). */
  unstream(shellId: string): void {
    this.streams.delete(shellId);
  }

  private unreachable(): RoomError {
    const why = this.linkState.error ? ` (${this.linkState.error})` : '';
    return new RoomError('UNAVAILABLE', `host ${this.target.alias} is unreachable${why}: its work goes on there and is unknown here until it is back; try again later, or "ce host check ${this.target.alias}"`);
  }

  private connect(): Promise<void> {
    if (this.ready) return this.ready;
    this.setState({ state: 'connecting', error: null, node: this.linkState.node });
    ensureOwnDir(this.target.controlDir);
    const ready = this.open();
    this.ready = ready;
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    return ready;
  }

  /**
   * Connects: straight to the node's socket through the master's forward when its path is known, else (or when
   * that closes before the node's hello: no node runs, no master) through the relay, which starts the node when
   * none runs. A relay connection then asks the node for its socket and moves to the forward, nothing being on it
   * yet; a forward that fails right after the relay reached the node means the host refuses it: the relay stays.
   */
  private async open(): Promise<void> {
    if (this.direct && this.nodeSocket !== null && (await this.attempt('forward'))) return;
    await this.attempt('relay');
    if (!this.direct) return;
    const relay = this.conn;
    let socket: unknown = null;
    try {
      socket = (await Promise.race([this.request<{ socket?: unknown }>('node_socket', {}), timeout(SOCKET_ANSWER_MS)])).socket;
    } catch (error) {
      if (!(error instanceof RoomError) || error.code === 'UNAVAILABLE') return; // the connection dropped: tried again next time
    }
    if (relay === null || this.conn !== relay) return;
    if (typeof socket !== 'string' || !forwardablePath(socket)) {
      this.direct = false; // an older node, or a path ssh cannot forward
      return;
    }
    this.nodeSocket = socket;
    this.moved.add(relay);
    this.conn = null;
    relay.end();
    if (await this.attempt('forward')) return;
    this.direct = false;
    await this.attempt('relay');
  }

  /**
   * One connection, to its hello: true once connected. A forward that cannot be made, or closes before the
   * hello, is false (the relay is tried); a relay that fails rejects, as the link's calls do then.
   */
  private async attempt(mode: 'relay' | 'forward'): Promise<boolean> {
    let socket: net.Socket | null = null;
    if (mode === 'forward') {
      socket = await connectForwarded(this.target, this.roomKey, this.nodeSocket as string, sshEnv(process.env));
      if (!socket) return false;
    }
    this.stderr = '';
    this.refused = null;
    return new Promise<boolean>((resolve, reject) => {
      let hello = false;
      const onHello = (h: Hello) => {
        clearTimeout(timer);
        if (typeof h.protocol !== 'number' || h.protocol < LINE_PROTOCOL) {
          return this.refuse(
            conn,
            `host ${this.target.alias} runs an older commonroom (${String(h.version)}, protocol ${String(h.protocol)}; this room needs ${LINE_PROTOCOL}): update it there with "npm i -g commonroom", then stop its old node ("commonroom node --stop --for ${this.roomKey}" on the host: its shells end with it) or let it end when idle`,
          );
        }
        hello = true;
        const { pid, room, version } = h;
        this.setState({ state: 'connected', error: null, node: { pid, room, version } });
        resolve(true);
      };
      const reader = new LinkReader(
        (line) => this.line(line, reader, onHello),
        (frame) => this.frame(frame),
        (why) => this.refuse(conn, `host ${this.target.alias}'s node sent what this room cannot read (${why}): the connection was closed; check that the host runs the same commonroom ("ce host check ${this.target.alias}")`),
      );
      const onClose = () => {
        clearTimeout(timer);
        if (this.conn === conn) {
          this.conn = null;
          if (hello) this.ready = null;
        }
        if (this.moved.has(conn)) return;
        if (!hello && mode === 'forward' && this.refused === null) return resolve(false);
        const last = this.refused ?? this.stderr.trim().split('\n').filter(Boolean).slice(-1)[0] ?? 'the connection closed';
        this.setState({ state: 'unreachable', error: last, node: this.linkState.node });
        const error = this.refused ? new RoomError('UNAVAILABLE', this.refused) : this.unreachable();
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
        const streams = [...this.streams.values()];
        this.streams.clear();
        for (const s of streams) s.dropped();
        reject(error);
      };
      const events: ConnEvents = {
        data: (b) => reader.push(b),
        stderr: (text) => {
          if (this.stderr.length < 8192) this.stderr += text;
        },
        close: onClose,
      };
      const conn: Conn = socket ? socketConn(socket, events) : relayConn(this.target, this.roomKey, events);
      this.conn = conn;
      const timer = setTimeout(() => conn.kill(), HELLO_TIMEOUT_MS);
    });
  }

  /** Ends the connection, saying why (instead of ssh's last line) to the calls in flight and in the link's state. */
  private refuse(conn: Conn, why: string): void {
    if (this.conn !== conn) return;
    this.refused ??= why;
    conn.kill();
  }

  private frame(frame: OutputFrame): void {
    this.streams.get(frame.shellId)?.data(frame.offset, frame.data, frame.gap);
  }

  private line(line: string, reader: LinkReader, onHello: (hello: Hello) => void): void {
    let msg: {
      hello?: Hello;
      id?: number;
      result?: unknown;
      error?: { code: string; message: string };
      stream?: { shellId: string; offset?: number; data?: string; gap?: boolean; exit?: { exitCode: number | null; signal: string | null }; end?: number };
    };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return; // a line that is not ours (a profile that prints to standard output): not the protocol
    }
    if (msg.stream) {
      const s = msg.stream;
      const listener = this.streams.get(s.shellId);
      if (!listener) return;
      if (s.exit && typeof s.end === 'number') listener.exit(s.exit, s.end);
      else if (typeof s.offset === 'number' && typeof s.data === 'string') listener.data(s.offset, Buffer.from(s.data, 'base64'), s.gap === true);
    } else if (msg.hello && !reader.framesAllowed) {
      // after its hello, the node may send frames of shell output between its lines
      reader.framesAllowed = true;
      onHello(msg.hello);
    } else if (typeof msg.id === 'number') {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) {
        const code: ErrorCode = (ERROR_CODES as readonly string[]).includes(msg.error.code) ? (msg.error.code as ErrorCode) : 'INTERNAL';
        p.reject(new RoomError(code, `on ${this.target.alias}: ${msg.error.message}`));
      } else p.resolve(msg.result);
    }
  }

  /** Ends the link (the node goes on). */
  close(): void {
    const conn = this.conn;
    this.conn = null;
    this.ready = null;
    conn?.end();
  }
}
