import { RoomError } from './errors';

/** What a participant may do. The operator (the person at the desktop) has all four. */
export const CAPABILITIES = ['read', 'write', 'approve', 'operate'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/** Parses "read,write,approve" into a sorted, de-duplicated list; refuses unknown words. */
export function parseCapabilities(text: string): Capability[] {
  const words = text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w.length > 0);
  if (words.length === 0) {
    throw new RoomError('INVALID_INPUT', `no capabilities given: pass one or more of ${CAPABILITIES.join(', ')}`);
  }
  const unknown = words.filter((w) => !isCapability(w));
  if (unknown.length > 0) {
    throw new RoomError(
      'INVALID_INPUT',
      `unknown capability ${unknown.map((u) => JSON.stringify(u)).join(', ')}: use ${CAPABILITIES.join(', ')}`,
    );
  }
  return CAPABILITIES.filter((c) => words.includes(c));
}
