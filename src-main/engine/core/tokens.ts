import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bearer tokens: 256 random bits from the CSPRNG, shown once, stored only as a SHA-256 hash. */
const TOKEN_PREFIX = 'cr_';

export function mintToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && ab.length > 0 && timingSafeEqual(ab, bb);
}

/** A plausible token shape; anything else is refused before any lookup. */
export function looksLikeToken(value: string): boolean {
  return /^cr_[A-Za-z0-9_-]{43}$/.test(value);
}
