/**
 * The UI door's wire protocol: what the renderer and the room process say to each other, the same over Electron
 * IPC (through the preload) and over the browser's WebSocket under `commonroom serve`. Calls are contract methods
 * (CONTRACT in contract.ts) made as the operator; events are the one change feed (committed EventViews); shell
 * bytes take their own fast path with flow control (acknowledged bytes), never the event ring. Every message is
 * JSON text on the WebSocket except `shell.data`, which is binary (ui-shell-frame.ts).
 *
 * Pure TypeScript: imported by the bridge (main side), the preload and the renderer.
 */
import type { EventView } from './handoff-dto';
import type { MethodName } from './contract';

/** Path of the browser UI under `commonroom serve`, and of its WebSocket. */
export const UI_PATH = '/ui/';
export const UI_SOCKET_PATH = '/ui/socket';
/**
 * The browser UI's sign-in (engine/people/sign-ins.ts): the page POSTs its one-time link token here (as a bearer
 * token) for a session secret it keeps in sessionStorage; a GET with the secret says whether it still holds.
 */
export const UI_SESSION_PATH = '/ui/session';
/** The page's sessionStorage key for its session secret (sessionStorage is per origin: scheme, host, port). */
export const UI_SECRET_KEY = 'commonroom.ui.session';
/** The UI socket's subprotocol; the secret rides as a second one, `commonroom.auth.<secret>` (no cookie). */
export const UI_SOCKET_PROTOCOL = 'commonroom.ui';
export const UI_AUTH_PROTOCOL_PREFIX = 'commonroom.auth.';
/** Close code of a UI socket whose session was signed out (revoked, or the room restarted). */
export const UI_SIGNED_OUT_CLOSE = 4401;

/** A frame of shell output is sent at most this often per shell (a few ms, VS Code style batching). */
export const SHELL_FRAME_MS = 5;

/** An error as every door shows it: a stable code and a message a person can act on. */
export interface UiError {
  code: string;
  message: string;
}

// ---- renderer → room process -------------------------------------------------------------------------------

export type ClientMessage =
  /** Call a contract method as the operator. `id` is chosen by the client and echoed in the reply. */
  | { t: 'call'; id: number; method: MethodName; input: unknown }
  /** Start watching a shell from byte cursor `from` (omit: from the oldest byte still in its scrollback). */
  | { t: 'shell.attach'; shellId: string; from?: number }
  | { t: 'shell.detach'; shellId: string }
  /** The terminal finished rendering this many bytes of that shell (xterm's write callback): flow control. */
  | { t: 'shell.ack'; shellId: string; bytes: number }
  /**
   * What the person typed into an attached shell, in order (at most LIMITS.shellMaxInputBytes of UTF-8 per
   * message). Refused input comes back as a `shell.error` for that shell, and nothing of it is sent.
   */
  | { t: 'shell.input'; shellId: string; text: string }
  /**
   * This view's size for an attached shell. The PTY follows it when this view drives the shell (it drove, or
   * nobody did and the shell is the person's own), or with `take` (the person's "Fit to panel": driving is
   * handed to this view). Answered with `shell.driving`.
   */
  | { t: 'shell.resize'; shellId: string; cols: number; rows: number; take?: boolean };

// ---- room process → renderer -------------------------------------------------------------------------------

export type ServerMessage =
  /** Sent first on every connection: who the UI acts as, and the endpoint agents connect to. */
  | { t: 'hello'; operator: string; mcpUrl: string; room: string; version: string }
  | { t: 'result'; id: number; ok: true; value: unknown }
  | { t: 'result'; id: number; ok: false; error: UiError }
  /** A committed event from the one change feed. Events are hints: the engine's state is the truth. */
  | { t: 'event'; event: EventView }
  /**
   * Output of an attached shell, batched. `data` is the raw bytes; `cursor` is the absolute byte offset of its
   * first byte; `truncated` says bytes before `cursor` were lost from the scrollback ring. On the WebSocket this
   * one message is binary (ui-shell-frame.ts: a small JSON header, then the bytes); over IPC it is this object.
   */
  | { t: 'shell.data'; shellId: string; cursor: number; data: Uint8Array; truncated?: boolean }
  /**
   * The room's shells changed (one opened, ended, was closed or adopted from a tty stage): a volatile hint from
   * the shells' own signal (shells are not committed state, so they are not in the event feed). Re-read shell_list.
   */
  | { t: 'shells.changed' }
  /**
   * Who is connected or what they called last changed (volatile presence, throttled by the engine; not in the
   * event feed because calls are not committed state). Re-read participant_activity.
   */
  | { t: 'presence.changed' }
  /** The shell ended (or was closed): no more data will come for it. */
  | { t: 'shell.exit'; shellId: string; exitCode: number | null; signal: string | null }
  /**
   * Whether the PTY follows this view's size: the answer to its `shell.resize`, and `false` when another view
   * took the shell over or its owner resized it. A view that does not drive shows the PTY at its size.
   */
  | { t: 'shell.driving'; shellId: string; driving: boolean }
  /** Attaching failed (unknown shell, not allowed, ...). */
  | { t: 'shell.error'; shellId: string; error: UiError };

/** Renderer-side transport both engine clients implement (IPC in Electron, WebSocket in the browser). */
export interface UiTransport {
  send(message: ClientMessage): void;
  onMessage(listener: (message: ServerMessage) => void): () => void;
  /** 'open' once usable; 'reconnecting' while the link is down (state must be re-read when it is back). */
  onState(listener: (state: 'open' | 'reconnecting' | 'closed') => void): () => void;
  close(): void;
  /** Why the link is closed for good, in words a person can act on (signed out, no bridge); else null. */
  problem?(): string | null;
}

/** The IPC channels the preload uses (Electron only). */
export const IPC_UI_SEND = 'commonroom:ui:send';
export const IPC_UI_MESSAGE = 'commonroom:ui:message';
