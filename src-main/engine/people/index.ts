/**
 * People's face: participants and their tokens, presence, revocation, the folders a person lets an agent
 * write, browser sign-ins (in memory) and the audit log. Owns the `participants` and `audit` tables.
 */

export { auditFeature, openAuditLog, recordCall } from './audit-feature';
export { participantsFeature } from './participants-feature';
export { Presence, PRESENCE_CHANGED } from './presence';
export { Revocations } from './revocation';
export { uiFeature } from './ui-feature';
export { BrowserSignIns } from './sign-ins';
export { PARTICIPANT_EVENTS } from './people-events';
