import { Engine, Room, type Paths } from '../engine/index';
import { LIMITS, type Limits } from '../common/limits';
import { badPortMessage, parsePort } from '../common/port';
import { ApiRoute } from '../api/http-api';
import { McpEndpoint } from '../mcp/endpoint';
import type { ExtraTool } from '../mcp/surface/extra-tools';
import { endListensOf } from '../mcp/eras/listen-2026';
import { FrontDoor, isLoopbackHost, refuseHostMessage } from './front-door';
import { startIdleCollect } from './idle-collect';
import { UiSocketDoor } from '../bridge/ui-socket';
import { UiStatic, defaultRendererDir } from '../bridge/ui-static';

export interface RunnerOptions {
  /** The room's markdown file; the default room when omitted. */
  room?: string | undefined;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  paths?: Paths;
  /** Overrides of LIMITS (tests use small caps and short idle times). */
  limits?: Partial<Limits>;
  /**
   * Tools the MCP door serves besides the contract's: only the test entry (src-main/testing/, loaded by
   * `serve --test-fixtures` or passed by a test) registers any.
   */
  extraTools?: (engine: Engine) => readonly ExtraTool[];
  /** The room's clock (tests move it to reach TTLs). */
  clock?: () => Date;
  /** Serve the browser UI at /ui/ (default true; the Electron app shows it in its window instead). */
  browserUi?: boolean;
  /** The built renderer (default: out/renderer of this package). */
  rendererDir?: string;
  /**
   * Hand back the memory a burst of work left in V8's heap once the process goes quiet (idle-collect.ts): set by
   * `commonroom serve`, whose process is the room's alone; off by default (a process shared with others, as the
   * tests' vitest workers are, has its own idea of when to collect).
   */
  idleCollect?: boolean;
}

export interface RunningRoom {
  engine: Engine;
  /** Base URL, e.g. http://127.0.0.1:7391/ */
  baseUrl: URL;
  /** The MCP endpoint, e.g. http://127.0.0.1:7391/mcp */
  mcpUrl: URL;
  tokenFile: string;
  /** The browser UI's first one-time sign-in link (http://127.0.0.1:PORT/ui/#token=...), when it is served. */
  uiUrl: URL | undefined;
  close(): Promise<void>;
}

/** The port from COMMONROOM_PORT when set (0 = a free port), else the documented default. */
export function portFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.COMMONROOM_PORT;
  if (raw === undefined || raw === '') return LIMITS.defaultPort;
  const port = parsePort(raw);
  if (port === null) throw new Error(badPortMessage('COMMONROOM_PORT', raw));
  return port;
}

/**
 * The person's own limits, from COMMONROOM_LIMITS: a JSON object of LIMITS names and whole numbers, e.g.
 * `{"maxShellsPerAgent": 8, "maxConnectionsPerParticipant": 16}`. Anything else is refused with what is allowed,
 * before the room is touched.
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Limits> {
  const raw = env.COMMONROOM_LIMITS;
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('COMMONROOM_LIMITS is not JSON: give an object such as {"maxShellsPerAgent": 8}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('COMMONROOM_LIMITS must be a JSON object such as {"maxShellsPerAgent": 8}');
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(key in LIMITS) || typeof LIMITS[key as keyof Limits] !== 'number') {
      throw new Error(`COMMONROOM_LIMITS: unknown limit "${key}": the names are those of src-main/common/limits.ts, e.g. maxShellsPerAgent, maxActiveGraphsPerAgent, maxActiveTasksPerAgent, maxConnectionsPerParticipant`);
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Error(`COMMONROOM_LIMITS: ${key} must be a whole number of 0 or more, not ${JSON.stringify(value)}`);
    out[key] = value;
  }
  return out as Partial<Limits>;
}

/**
 * The room process: opens the room as its single writer, then serves every HTTP door on loopback.
 * `commonroom serve` and the Electron main process both start exactly this.
 */
export async function startRunner(options: RunnerOptions = {}): Promise<RunningRoom> {
  const host = options.host ?? '127.0.0.1';
  // refused before the room is touched: a bad --host must not create a room (or its token) first
  if (!isLoopbackHost(host)) throw new Error(refuseHostMessage(host));
  const limits = { ...LIMITS, ...limitsFromEnv(), ...options.limits };
  const room = Room.open({ markdown: options.room, ...(options.paths ? { paths: options.paths } : {}), ...(options.clock ? { clock: options.clock } : {}) });
  const engine = await Engine.start(room, limits);
  const mcp = new McpEndpoint(engine, {
    maxBodyBytes: limits.maxBodyBytes,
    maxSessions: limits.maxLegacySessions,
    maxSessionsPerParticipant: limits.maxLegacySessionsPerParticipant,
    idleMs: limits.legacySessionIdleMs,
    replayMessages: limits.legacyReplayMessages,
    extraTools: options.extraTools?.(engine) ?? [],
    // idle sessions are measured on the room's clock, so a test that moves it reaches the idle time
    ...(options.clock ? { now: () => (options.clock as () => Date)().getTime() } : {}),
  });
  const port = options.port ?? limits.defaultPort;
  const browserUi = options.browserUi !== false;
  // the socket needs the MCP URL for its hello, known once the port is bound: it reads it lazily
  let mcpUrlText = '';
  // the socket is served in the app too: `ce shell attach` reaches shells through it with the operator token
  const ui = {
    files: browserUi ? new UiStatic(engine, options.rendererDir ?? defaultRendererDir()) : undefined,
    socket: new UiSocketDoor(engine, { mcpUrl: () => mcpUrlText, maxMessageBytes: limits.maxBodyBytes, maxJsonDepth: limits.maxJsonDepth }),
  };
  const door = new FrontDoor(
    engine,
    mcp,
    new ApiRoute(engine),
    {
      host,
      port,
      maxBodyBytes: limits.maxBodyBytes,
      bodyTimeoutMs: limits.bodyTimeoutMs,
      headersTimeoutMs: limits.headersTimeoutMs,
      maxConnections: limits.maxConnections,
      maxUnauthenticatedConnections: limits.maxUnauthenticatedConnections,
      unauthenticatedIdleMs: limits.unauthenticatedIdleMs,
      maxConnectionsPerParticipant: limits.maxConnectionsPerParticipant,
      reservedOperatorConnections: limits.reservedOperatorConnections,
      maxJsonDepth: limits.maxJsonDepth,
    },
    ui,
  );
  let baseUrl: URL;
  try {
    baseUrl = await door.listen();
  } catch (error) {
    await mcp.close();
    await engine.close();
    throw error;
  }
  const mcpUrl = new URL('/mcp', baseUrl);
  mcpUrlText = mcpUrl.toString();
  room.setEndpoint(baseUrl.toString());
  // the browser UI's first one-time sign-in link, for the banner (more: ui_link_create, "ce ui-link")
  if (browserUi) engine.uiSessions.serveAt(baseUrl);
  const uiUrl = browserUi ? engine.uiSessions.mintLink() : undefined;
  // a quiet room hands back what its last burst of work left in V8's heap (idle-collect.ts)
  const stopIdleCollect = options.idleCollect ? startIdleCollect() : () => undefined;
  const unsubscribe = engine.bus.subscribe((event) => {
    if ((event.kind === 'participant.revoked' || event.kind === 'participant.token_rotated') && event.subject) {
      void mcp.legacy.closeFor(event.subject);
      endListensOf(event.subject);
    }
  });

  let closing: Promise<void> | undefined;
  return {
    engine,
    baseUrl,
    mcpUrl,
    tokenFile: room.operatorTokenFile,
    uiUrl,
    close() {
      closing ??= (async () => {
        unsubscribe();
        stopIdleCollect();
        await mcp.close();
        await door.close();
        await engine.close();
      })();
      return closing;
    },
  };
}
