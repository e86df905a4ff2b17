import type { z } from 'zod';
import { AGENT_METHODS, type AgentOutputs } from './methods/agents';
import { AUDIT_METHODS, type AuditOutputs } from './methods/audit';
import { HOST_METHODS, type HostOutputs } from './methods/hosts';
import { HANDOFF_METHODS, type HandoffOutputs } from './methods/handoffs';
import { HANDOFF_HISTORY_METHODS, type HandoffHistoryOutputs } from './methods/handoff-history';
import { GRAPH_METHODS, type GraphOutputs } from './methods/graphs';
import { PARTICIPANT_METHODS, type ParticipantOutputs } from './methods/participants';
import { ROOM_METHODS, type RoomOutputs } from './methods/room';
import { SCHEDULE_METHODS, type ScheduleOutputs } from './methods/schedules';
import { SHELL_METHODS, type ShellOutputs } from './methods/shells';
import { SPEND_METHODS, type SpendOutputs } from './methods/spend';
import { TASK_METHODS, type TaskOutputs } from './methods/tasks';
import { SUMMARY_METHODS, type SummaryOutputs } from './methods/summary';
import { UI_METHODS, type UiOutputs } from './methods/ui';

export type { MethodSpec } from './method-spec';

/**
 * The one method table. Every door (MCP tools, the HTTP API the CLI and web UI use, Electron IPC) is generated
 * from it. A capability adds its methods in `methods/<feature>.ts`, spreads them in here, adds its outputs
 * to MethodOutputs, and implements them in the engine.
 */
export const CONTRACT = {
  ...ROOM_METHODS,
  ...PARTICIPANT_METHODS,
  ...SHELL_METHODS,
  ...HANDOFF_METHODS,
  ...TASK_METHODS,
  ...HANDOFF_HISTORY_METHODS,
  ...GRAPH_METHODS,
  ...AUDIT_METHODS,
  ...UI_METHODS,
  ...AGENT_METHODS,
  ...HOST_METHODS,
  ...SCHEDULE_METHODS,
  ...SUMMARY_METHODS,
  ...SPEND_METHODS,
};

/** What each method answers; the engine implements exactly this. */
export interface MethodOutputs extends RoomOutputs, ParticipantOutputs, ShellOutputs, HandoffOutputs, TaskOutputs, HandoffHistoryOutputs, GraphOutputs, AuditOutputs, UiOutputs, AgentOutputs, HostOutputs, ScheduleOutputs, SummaryOutputs, SpendOutputs {}

export type Contract = typeof CONTRACT;
export type MethodName = keyof Contract;
export type MethodInput<M extends MethodName> = z.infer<ReturnType<Contract[M]['input']>>;

export const METHOD_NAMES = Object.keys(CONTRACT) as MethodName[];

export function isMethodName(value: string): value is MethodName {
  return Object.prototype.hasOwnProperty.call(CONTRACT, value);
}

// Compile-time guard: every method has an output type and every output type a method.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const OUTPUTS_MATCH_METHODS: Same<keyof MethodOutputs, MethodName> = true;
