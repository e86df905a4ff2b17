import type http from 'node:http';
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/** One header as the web `Headers.get` reads it (repeated values joined by ", "). */
function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A body the SDK's classifier can only route to the 2026 era (or refuse there), never to 2025 serving: one
 * JSON-RPC message (not a batch) that is not a response (no `result`, no `error`: the response shapes require
 * them), not `initialize` (the one method whose legacy handshake can outrank an envelope), whose params carry
 * the 2026 envelope's protocol-version key. Every 2026 request has that claim, and `createMcpHandler`
 * classifies it again anyway, so it need not be classified twice (the classifier's failed zod guards were ≈ 5 %
 * of a 2026 call's CPU). `test/mcp/era.test.ts` holds this to the SDK's own classifier.
 */
export function claimsModernEra(body: unknown): boolean {
  if (!isObject(body) || 'result' in body || 'error' in body || body.method === 'initialize') return false;
  const params = body.params;
  return isObject(params) && isObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/**
 * Whether a POST is the 2025 era's to answer: the SDK's own era classifier (the one `isLegacyRequest` and
 * `createMcpHandler` use), fed the body the front door already parsed and the three headers it reads, so no
 * web `Request` is built just to ask (≈ 9 % of a call's CPU in the mcp-call profile).
 */
export function isLegacyPost(req: http.IncomingMessage, body: unknown): boolean {
  if (body === undefined) return true; // as the SDK: a POST without a JSON body is the 2025 transport's to answer
  if (claimsModernEra(body)) return false;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header(req, 'mcp-protocol-version'),
    mcpMethodHeader: header(req, 'mcp-method'),
    mcpNameHeader: header(req, 'mcp-name'),
    body,
  });
  return outcome.kind === 'legacy';
}
