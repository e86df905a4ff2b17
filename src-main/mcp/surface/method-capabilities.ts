import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { Capability } from '../../common/capabilities';
import { CONTRACT, isMethodName } from '../../common/contract';
import type { Caller } from '../../common/dto';

/**
 * The one table of what every MCP method needs, for both eras. `null`: any authenticated participant (the
 * handshake, and catalogs that list only what the caller may use). Tools: `tools/call` needs the capability of
 * the contract method it calls (checked again by the engine). Reading the room's markdown, logs and tasks needs
 * `read`; changing a task needs `write`. A method missing here cannot be served (registration throws).
 */
export const PROTOCOL_CAPABILITIES: Readonly<Record<string, Capability | null>> = {
  initialize: null,
  ping: null,
  'server/discover': null,
  'tools/list': null,
  'tools/call': null,
  'resources/list': 'read',
  'resources/templates/list': 'read',
  'resources/read': 'read',
  'resources/subscribe': 'read',
  'resources/unsubscribe': 'read',
  'subscriptions/listen': 'read',
  'tasks/get': 'read',
  'tasks/list': 'read',
  'tasks/result': 'read',
  'tasks/cancel': 'write',
  'tasks/update': 'write',
};

/** The capability an MCP request needs: the protocol method's, or for tools/call the tool's contract entry. */
export function capabilityFor(method: string, toolName?: string): Capability | null | undefined {
  if (method === 'tools/call' && toolName !== undefined && isMethodName(toolName)) return CONTRACT[toolName].capability;
  return PROTOCOL_CAPABILITIES[method];
}

export function missingCapability(caller: Caller, method: string): ProtocolError | null {
  const need = PROTOCOL_CAPABILITIES[method];
  if (need === undefined) return new ProtocolError(ProtocolErrorCode.MethodNotFound, `unknown method ${method}`);
  if (need === null || caller.capabilities.includes(need)) return null;
  return new ProtocolError(ProtocolErrorCode.InvalidRequest, `${method} needs the "${need}" capability, which ${caller.name} does not have`);
}

/**
 * Makes every request handler registered on `server` from now on check the table first. Call it before the
 * handlers are registered.
 */
export function enforceCapabilities(server: Server, caller: Caller): void {
  const register = server.setRequestHandler.bind(server) as (method: string, ...rest: unknown[]) => void;
  (server as unknown as { setRequestHandler: (method: string, ...rest: unknown[]) => void }).setRequestHandler = (method, ...rest) => {
    if (PROTOCOL_CAPABILITIES[method] === undefined) throw new Error(`MCP method ${method} has no entry in PROTOCOL_CAPABILITIES`);
    const handler = rest.at(-1) as (...args: unknown[]) => unknown;
    const guarded = (...args: unknown[]) => {
      const refusal = missingCapability(caller, method);
      if (refusal) throw refusal;
      return handler(...args);
    };
    register(method, ...rest.slice(0, -1), guarded);
  };
}
