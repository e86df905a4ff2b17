import type http from 'node:http';

/** Every answer the front door writes itself is JSON, never HTML, never a stack trace. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/** A JSON-RPC error body without a request id (transport-level refusals). */
export function sendRpcError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: string | number | null = null,
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id }, headers);
}

/** A browser's page load (a person typed or followed the address): it asks for HTML first. */
export function wantsHtml(req: http.IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && /^\s*text\/html/i.test(String(req.headers.accept ?? ''));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A short page of words for a person's browser where a program would get JSON: a heading, what happened and
 * what to do, and a link on (no script, no style from elsewhere).
 */
export function sendPage(res: http.ServerResponse, status: number, page: { title: string; text: string; link?: { href: string; label: string } }, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const link = page.link ? `<p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.label)}</a></p>` : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Commonroom: ${escapeHtml(page.title)}</title></head><body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; padding: 0 1em; line-height: 1.5"><h1>Commonroom: ${escapeHtml(page.title)}</h1><p>${escapeHtml(page.text)}</p>${link}</body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ...headers,
  });
  res.end(html);
}
