import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Every id the engine mints, in one place, and the one source features get them from (the engine context's
 * `ids`; a test may pass its own). One format: a kind prefix (`tk_` task, `hf_` handoff, `gr_` graph, `sh_`
 * shell) and random base64url characters, so an id says what it names. Rooms keep the ids they already hold
 * (`t-…`, `t_…`, `h_…`, UUID graphs, `sh-…` shells): stored rows are never rewritten, and every read accepts
 * both. Ids are never credentials (tokens are minted in tokens.ts), but
 * they are unguessable all the same. Correlation and room ids stay UUIDs: they name no object a tool takes.
 */
export interface IdSource {
  /** A job's task id: `tk_` + 22 base64url characters. */
  taskId(): string;
  /** A handoff's id: `hf_` + 16 base64url characters. */
  handoffId(): string;
  /** A handoff execution's task id: `tk_` + 16 base64url characters. */
  handoffTaskId(): string;
  /** A graph's id (also its task id): `gr_` + 22 base64url characters. */
  graphId(): string;
  /** A schedule's id: `sc_` + 16 base64url characters. */
  scheduleId(): string;
  /** A task's correlation id when the caller gave none: a UUID. */
  correlationId(): string;
  /** A new room's id: a UUID. */
  roomId(): string;
  /** This runner's shell epoch: 6 hex digits, so a shell id from before a restart is told apart. */
  shellEpoch(): string;
  /** A shell's id: `sh_<epoch>` + 10 hex digits. */
  shellId(epoch: string): string;
}

const b64 = (bytes: number) => randomBytes(bytes).toString('base64url');

export const randomIds: IdSource = {
  taskId: () => `tk_${b64(16)}`,
  handoffId: () => `hf_${b64(12)}`,
  handoffTaskId: () => `tk_${b64(12)}`,
  graphId: () => `gr_${b64(16)}`,
  scheduleId: () => `sc_${b64(12)}`,
  correlationId: () => randomUUID(),
  roomId: () => randomUUID(),
  shellEpoch: () => randomBytes(3).toString('hex'),
  shellId: (epoch) => `sh_${epoch}${randomBytes(5).toString('hex')}`,
};

/**
 * Whether `id` looks like a shell id of any runner (to tell "from before a restart" from "never existed"),
 * or of the runner with this epoch. Both formats: `sh_<epoch><hex>` and the earlier `sh-<epoch>-<hex>`.
 */
export function isShellIdOfEpoch(id: string, epoch?: string): boolean {
  if (epoch === undefined) return /^sh_[0-9a-f]{16}$/.test(id) || /^sh-[0-9a-f]{6}-/.test(id);
  return id.startsWith(`sh_${epoch}`) || id.startsWith(`sh-${epoch}-`);
}

/**
 * COMMONROOM_PROC_TAG values: every process the room starts carries one, so a later runner finds (and ends)
 * what an earlier one left behind. The prefixes are what restart reconciliation sweeps.
 */
export const procTags = {
  /** Every tag of the room's processes (shells and stages): the one look at start reads these. */
  roomPrefix: (roomId: string) => `${roomId}:`,
  stagePrefix: (roomId: string) => `${roomId}:stage:`,
  stage: (roomId: string, graphId: string, stageId: string, attempt: number) => `${roomId}:stage:${graphId}:${stageId}:${attempt}`,
  shellPrefix: (roomId: string) => `${roomId}:shell:`,
  shell: (roomId: string, shellId: string) => `${roomId}:shell:${shellId}`,
};
