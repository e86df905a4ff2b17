import type { HandoffStatus } from './handoff-machine';
import type { TaskStatus } from './task-machine';

/** A pointer to something the work is about. Stored as given and never fetched by the runner. */
export interface ArtifactRef {
  uri: string;
  name?: string | undefined;
  mediaType?: string | undefined;
}

/** One outstanding question a working task asks (an elicitation for the person, in MCP's shape). */
export interface InputRequest {
  method: 'elicitation/create';
  params: { mode: 'form'; message: string; requestedSchema: Record<string, unknown> };
}

/** The answer to one input request, in the shape of an elicitation result. */
export interface InputAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown> | undefined;
  answeredBy: string;
  answeredAt: string;
}

export interface HandoffResult {
  text: string;
  artifacts: ArtifactRef[];
  completedBy: string;
  completedAt: string;
}

/** The execution record, with the MCP task fields (camelCase, as tasks/get will answer them). */
export interface TaskView {
  taskId: string;
  operation: string;
  owner: string;
  assignee: string | null;
  status: TaskStatus;
  statusMessage: string | null;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds; null when the task is kept until removed on purpose. */
  ttl: number | null;
  pollInterval: number;
  correlationId: string;
  schemaVersion: number;
  /** Its records, as the task-log:// resource to read or subscribe to. */
  taskLog: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, InputRequest>;
}

export interface HandoffView {
  id: string;
  status: HandoffStatus;
  owner: string;
  /** The participant it was addressed to; null: anyone may accept it. */
  to: string | null;
  assignee: string | null;
  summary: string;
  constraints: string | null;
  artifacts: ArtifactRef[];
  /** Copied from the task on completion, so it outlives the task row. */
  result: HandoffResult | null;
  inputAnswers: Record<string, InputAnswer>;
  decision: { approved: boolean; by: string; at: string; reason: string | null } | null;
  cancellation: { by: string | null; at: string; reason: string | null } | null;
  taskId: string;
  /** The task as it is now; null once it was deleted one TTL after it ended. */
  task: TaskView | null;
  createdAt: string;
  updatedAt: string;
}

export interface EventView {
  id: number;
  at: string;
  kind: string;
  actor: string | null;
  subject: string | null;
  data: unknown;
}

/** A page of events after a cursor. `oldestRetainedId` tells a reader whether the ring dropped part of its gap. */
export interface EventPage {
  events: EventView[];
  /** Pass as `cursor` for the next page (always given: the feed grows; `more` says whether more is already there). */
  nextCursor: string;
  more: boolean;
  oldestRetainedId: number | null;
}
