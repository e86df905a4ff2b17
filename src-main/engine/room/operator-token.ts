import { CAPABILITIES } from '../../common/capabilities';
import path from 'node:path';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../core/fs-safe';
import type { EventRepo } from '../store/events';
import type { ParticipantRepo } from '../store/participants';
import { hashToken, mintToken, sameHash } from '../core/tokens';
import type Database from 'better-sqlite3';

/**
 * The operator exists from the room's first open. Its token file is checked on every open by the writer; when
 * it is missing or no longer matches (deleted, or the room was copied from elsewhere) a new token replaces it.
 */
export function ensureOperatorToken(
  db: Database.Database,
  repos: { participants: ParticipantRepo; events: EventRepo },
  tokenFile: string,
  at: string,
): void {
  const operator = repos.participants.operator();
  // its folder is checked on every open, not only when a token is written: a tokens folder someone made open
  // to others is tightened (ours) or refused (theirs) before the token in it is trusted
  ensurePrivateDir(path.dirname(tokenFile));
  const existing = readPrivateFile(tokenFile)?.trim() ?? null;
  if (operator && existing && sameHash(hashToken(existing), operator.tokenHash)) return;
  const token = mintToken();
  db.transaction(() => {
    if (operator) {
      repos.participants.setTokenHash(operator.id, hashToken(token));
      repos.events.append({ at, kind: 'participant.token_reissued', actor: null, subject: operator.name });
    } else {
      repos.participants.insert({ name: 'operator', role: 'operator', capabilities: CAPABILITIES, tokenHash: hashToken(token), at });
      repos.events.append({ at, kind: 'participant.added', actor: null, subject: 'operator', data: { role: 'operator' } });
    }
  }).immediate();
  writePrivateFile(tokenFile, `${token}\n`);
}
