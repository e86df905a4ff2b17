/** A TCP port as a person typed it (flag or environment): a whole number from 0 (any free port) to 65535, else null. */
export function parsePort(raw: string): number | null {
  return /^\d{1,5}$/.test(raw) && Number(raw) <= 65535 ? Number(raw) : null;
}

/** What to say about a port that does not parse; `source` names where it came from (--port, COMMONROOM_PORT). */
export function badPortMessage(source: string, raw: string): string {
  return `${source} must be a number from 0 to 65535, not ${JSON.stringify(raw)}`;
}
