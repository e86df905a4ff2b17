import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Every id the engine mints, in one place, and the one source features get them from (the engine context's
 * `ids`; a test may pass its own). The formats are the ones rooms already hold: changing one is a migration.
 * Ids are never credentials (tokens are minted in tokens.ts), but they are unguessable all the same.
 */
export interface IdSource {
  /** A job's task id: `t-` + 22 base64url characters. */
  taskId(): string;
  /** A handoff's id: `h_` + 16 base64url characters. */
  handoffId(): string;
  /** A handoff execution's task id: `t_` + 16 base64url characters. */
  handoffTaskId(): string;
  /** A graph's id (also its task id): a UUID. */
  graphId(): string;
  /** A task's correlation id when the caller gave none: a UUID. */
  correlationId(): string;
  /** A new room's id: a UUID. */
  roomId(): string;
  /** This runner's shell epoch: 6 hex digits, so a shell id from before a restart is told apart. */
  shellEpoch(): string;
  /** A shell's id: `sh-<epoch>-` + 10 hex digits. */
  shellId(epoch: string): string;
}

const b64 = (bytes: number) => randomBytes(bytes).toString('base64url');

export const randomIds: IdSource = {
  taskId: () => `t-${b64(16)}`,
  handoffId: () => `h_${b64(12)}`,
  handoffTaskId: () => `t_${b64(12)}`,
  graphId: () => randomUUID(),
  correlationId: () => randomUUID(),
  roomId: () => randomUUID(),
  shellEpoch: () => randomBytes(3).toString('hex'),
  shellId: (epoch) => `sh-${epoch}-${randomBytes(5).toString('hex')}`,
};

/** Whether `id` looks like a shell id of any runner (to tell "from before a restart" from "never existed"). */
export function isShellIdOfEpoch(id: string, epoch?: string): boolean {
  return epoch === undefined ? /^sh-[0-9a-f]{6}-/.test(id) : id.startsWith(`sh-${epoch}-`);
}

/**
 * COMMONROOM_PROC_TAG values: every process the room starts carries one, so a later runner finds (and ends)
 * what an earlier one left behind. The prefixes are what restart reconciliation sweeps.
 */
export const procTags = {
  stagePrefix: (roomId: string) => `${roomId}:stage:`,
  stage: (roomId: string, graphId: string, stageId: string, attempt: number) => `${roomId}:stage:${graphId}:${stageId}:${attempt}`,
  shellPrefix: (roomId: string) => `${roomId}:shell:`,
  shell: (roomId: string, shellId: string) => `${roomId}:shell:${shellId}`,
};
