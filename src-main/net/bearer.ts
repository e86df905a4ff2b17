import type http from 'node:http';

/** The token of an `Authorization: Bearer …` header, or null: the one reading of it for every door. */
export function bearerToken(req: http.IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}
