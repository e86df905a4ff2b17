import { ProtocolError, ProtocolErrorCode, type InitializeRequest, type InitializeResult, type Server } from '@modelcontextprotocol/server';

/**
 * Core tasks (the `tasks` capability, `execution.taskSupport`, tasks/*) exist from protocol 2025-11-25 on. A
 * 2025 session that negotiated an earlier version (2025-06-18, 2025-03-26, and 2024-11-05, which the SDK still
 * negotiates) is served the same tools and resources without them: no `tasks` capability, no `execution` on
 * tools, tasks/* refused with -32601, a tools/call with `task` refused. Graph runs and handoffs still answer as
 * ordinary results there, with the task id in them for polling through tasks_status / handoff_get.
 */
export const TASKS_SINCE_VERSION = '2025-11-25';

/** Protocol versions are dates, so they compare as strings. */
export function versionServesTasks(version: string | undefined): boolean {
  return version !== undefined && version >= TASKS_SINCE_VERSION;
}

/** The version a 2025 session negotiated (undefined before initialize). */
export function negotiatedVersion(server: Server): string | undefined {
  return server.getNegotiatedProtocolVersion();
}

export function sessionServesTasks(server: Server): boolean {
  return versionServesTasks(negotiatedVersion(server));
}

/** Refuses a tasks/* request on a session whose version has no tasks. */
export function requireTasksVersion(server: Server, method: string): void {
  if (sessionServesTasks(server)) return;
  throw new ProtocolError(
    ProtocolErrorCode.MethodNotFound,
    `${method} is not served on protocol ${negotiatedVersion(server) ?? '(none)'}: tasks need ${TASKS_SINCE_VERSION} or later (or 2026-07-28 with the tasks extension); initialize again with a newer protocolVersion`,
  );
}

/**
 * Answers initialize as the SDK does, then drops the `tasks` capability when the negotiated version predates
 * it. Registered after the Server's own handler, so it replaces it.
 */
export function gateTasksCapability(server: Server): void {
  const sdk = server as unknown as { _oninitialize(request: InitializeRequest): Promise<InitializeResult> };
  const original = sdk._oninitialize.bind(server);
  server.setRequestHandler('initialize', async (request) => {
    const result = await original(request as InitializeRequest);
    if (versionServesTasks(result.protocolVersion)) return result;
    const { tasks: _dropped, ...capabilities } = result.capabilities as Record<string, unknown>;
    return { ...result, capabilities } as InitializeResult;
  });
}
