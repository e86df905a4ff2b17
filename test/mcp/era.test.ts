import type http from 'node:http';
import fc from 'fast-check';
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { claimsModernEra, isLegacyPost } from '../../src-main/mcp/transport/era';

// /mcp routes each POST to 2025 serving or to the 2026 handler. Routing is the SDK classifier's call; the door
// skips asking it for bodies that carry the 2026 envelope claim, which must never change the answer. These
// properties hold the shortcut to the SDK's classifier over bodies built near every rule it has: responses,
// batches, notifications, initialize with and without a claim, claims of every shape, and mismatched headers.

const versions = fc.constantFrom('2026-07-28', '2025-11-25', '2025-06-18', '2024-11-05', '9999-01-01', 'garbage', '');
const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string({ maxLength: 6 }), fc.constant([]), fc.constant({}));
const meta = fc.record(
  {
    [PROTOCOL_VERSION_META_KEY]: fc.oneof(versions, anyValue),
    'io.modelcontextprotocol/clientInfo': fc.oneof(fc.constant({ name: 'c', version: '1' }), anyValue),
    'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), anyValue),
    progressToken: anyValue,
  },
  { requiredKeys: [] },
);
const params = fc.oneof(
  fc.constant(undefined),
  fc.constant([]),
  fc.record({ name: fc.oneof(fc.constant('room_info'), anyValue), arguments: fc.oneof(fc.constant({}), anyValue), protocolVersion: fc.oneof(versions, anyValue), _meta: fc.oneof(meta, anyValue) }, { requiredKeys: [] }),
);
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), anyValue),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), anyValue),
    method: fc.oneof(fc.constantFrom('tools/call', 'initialize', 'server/discover', 'notifications/cancelled', 'notifications/initialized', 'ping', 'x'), anyValue),
    params,
    result: fc.oneof(fc.constant({}), anyValue),
    error: fc.oneof(fc.constant({ code: -32600, message: 'm' }), anyValue),
  },
  { requiredKeys: [] },
);
// near the shortcut: a claim always present (of any value), other members sometimes missing or wrong
const claiming = fc
  .tuple(
    fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), anyValue),
        id: fc.oneof(fc.integer(), anyValue),
        method: fc.oneof(fc.constantFrom('tools/call', 'initialize', 'server/discover', 'notifications/cancelled', 'x'), anyValue),
        params: fc.record({
          name: fc.oneof(fc.constant('room_info'), anyValue),
          _meta: fc.record({ [PROTOCOL_VERSION_META_KEY]: fc.oneof(versions, anyValue), other: anyValue }, { requiredKeys: [PROTOCOL_VERSION_META_KEY] }),
        }),
      },
      { requiredKeys: ['jsonrpc', 'params'] },
    ),
    fc.constantFrom('none', 'none', 'none', 'result', 'error'),
    anyValue,
  )
  .map(([m, extra, value]) => (extra === 'none' ? m : { ...m, [extra]: value }));
// well-formed 2025 traffic: requests, initialize, notifications, responses, with or without some _meta
const legacyShaped = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('tools/call', 'tools/list', 'ping', 'x'), params: fc.record({ name: fc.constant('room_info'), _meta: fc.record({ progressToken: fc.integer() }) }, { requiredKeys: [] }) }, { requiredKeys: ['jsonrpc', 'id', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constant('initialize'), params: fc.record({ protocolVersion: versions, capabilities: fc.constant({}), clientInfo: fc.constant({ name: 'c', version: '1' }), _meta: meta }, { requiredKeys: ['protocolVersion'] }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constantFrom('notifications/initialized', 'notifications/cancelled'), params: fc.constant({ requestId: 1 }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), result: fc.constant({}) }),
);
const body = fc.oneof({ weight: 3, arbitrary: message }, { weight: 3, arbitrary: claiming }, { weight: 3, arbitrary: legacyShaped }, { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }) }, { weight: 1, arbitrary: anyValue });
const headers = fc.record(
  {
    'mcp-protocol-version': fc.oneof(versions, fc.constant(' 2026-07-28 ')),
    'mcp-method': fc.constantFrom('tools/call', 'initialize', 'ping', 'other'),
    'mcp-name': fc.constantFrom('room_info', 'other'),
  },
  { requiredKeys: [] },
);

function sdkSaysLegacy(h: Record<string, string>, b: unknown): boolean {
  return classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: h['mcp-protocol-version'], mcpMethodHeader: h['mcp-method'], mcpNameHeader: h['mcp-name'], body: b }).kind === 'legacy';
}

describe('which era a POST to /mcp belongs to', () => {
  it('a body the door takes for 2026 without asking is one the SDK never routes to 2025, and the door agrees with the SDK on every body', () => {
    let claimed = 0;
    let legacy = 0;
    fc.assert(
      fc.property(headers, body, (h, b) => {
        const req = { headers: h } as unknown as http.IncomingMessage;
        const sdk = sdkSaysLegacy(h, b);
        if (claimsModernEra(b)) {
          claimed++;
          expect(sdk).toBe(false);
        }
        if (sdk) legacy++;
        // no body at all (never the front door's JSON.parse result) is the 2025 transport's to answer, by design
        expect(isLegacyPost(req, b)).toBe(b === undefined ? true : sdk);
      }),
      { numRuns: 4000 },
    );
    // the generator reached both sides of the shortcut and both eras, or the property would prove nothing
    expect(claimed).toBeGreaterThan(100);
    expect(legacy).toBeGreaterThan(100);
  });

  it('the requests real clients send: the 2026 client claims the era, the 2025 client and initialize do not', () => {
    const modern = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'room_info', arguments: {}, _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } };
    expect(claimsModernEra(modern)).toBe(true);
    expect(claimsModernEra({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'room_info', arguments: {} } })).toBe(false);
    expect(claimsModernEra({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } })).toBe(false);
    expect(claimsModernEra([modern])).toBe(false);
    expect(isLegacyPost({ headers: {} } as http.IncomingMessage, undefined)).toBe(true);
  });
});
