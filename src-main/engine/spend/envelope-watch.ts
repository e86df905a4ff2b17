import type { Caller } from '../../common/dto';
import { dollars, type EnvelopeLimit, type EnvelopeView, type SpendUsage } from '../../common/methods/spend';
import { countedTokens, NO_USAGE } from '../../common/otlp-usage';
import type { EngineContext } from '../room/index';
import { viewOf } from '../shells/index';
import type { SpendRepo } from '../store/spend';
import { toCaller } from '../store/participants';
import type { AgentRunRef, Invoke } from '../agents/index';

/**
 * The key each client documents to interrupt its turn ("esc to interrupt", "esc to cancel" on its screen); a
 * plain command gets C-c. The room types it first, so the stop comes at a safe point: the client back at its
 * prompt with its conversation saved, not killed mid-write.
 */
const INTERRUPT_KEY: Readonly<Record<string, string>> = { 'claude-code': '\x1b', codex: '\x1b', 'gemini-cli': '\x1b', opencode: '\x1b' };
/**
 * Who hands the person the note of a stop: a participant of the room's own, made on first need, whose token
 * nobody keeps (the room acts as it, through Engine.call). The inbox shows "room-envelopes → operator".
 */
const NOTE_AUTHOR = 'room-envelopes';
/** How long an interrupted client has to reach its prompt before its terminal is closed. */
const SAFE_POINT_MS = 5000;

/** What an envelope found over its limit: which limit, in words, and the agent runs to stop. */
interface Over {
  limit: EnvelopeLimit;
  text: string;
  runs: AgentRunRef[];
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m} min` : `${Math.round(m / 6) / 10} h`;
}

/** The first limit the reading is over, in the order cost, tokens, wall-clock, idle. */
function overOf(e: EnvelopeView, who: string, used: SpendUsage, wallMs: number, idleMs: number | null): Omit<Over, 'runs'> | null {
  if (e.maxCostMicroUsd !== null && used.costMicroUsd >= e.maxCostMicroUsd) return { limit: 'cost', text: `${who} spent ${dollars(used.costMicroUsd)} of its ${dollars(e.maxCostMicroUsd)}` };
  const tokens = countedTokens(used);
  if (e.maxTokens !== null && tokens >= e.maxTokens) return { limit: 'tokens', text: `${who} used ${tokens.toLocaleString('en')} tokens of its ${e.maxTokens.toLocaleString('en')}` };
  if (e.maxWallMs !== null && wallMs >= e.maxWallMs) return { limit: 'wall', text: `${who} ran ${duration(wallMs)} of its ${duration(e.maxWallMs)}` };
  if (e.maxIdleMs !== null && idleMs !== null && idleMs >= e.maxIdleMs) return { limit: 'idle', text: `${who} sat idle ${duration(idleMs)} (its limit: ${duration(e.maxIdleMs)})` };
  return null;
}

/**
 * Watches the active envelopes: on each usage report for a run (tokens, cost) and every tick (wall-clock, idle).
 * Over a limit, it marks the envelope stopped (once: a second look finds it no longer active), interrupts each
 * agent run it bounds with its client's key, waits for the safe point, stops the run (its token stays: "Start
 * again" resumes the conversation), cancels a graph through the graph cancel path, and hands the person a note
 * ("stopped by its envelope: cost — …", an open handoff addressed to them: the inbox's "for you"), then records
 * envelope.stopped. An envelope whose target ended by itself is marked ended.
 */
export function envelopeWatch(ctx: EngineContext, repo: SpendRepo, invoke: Invoke, liveRuns: () => AgentRunRef[]) {
  let timer: ReturnType<typeof setInterval> | undefined;
  let checking: Promise<void> | null = null;
  let again = false;
  let againFull = false;
  let closed = false;
  let stopListening: (() => void) | undefined;
  /**
   * When each handoff's or graph's envelope started counting (ms), read once: a tick reads no other feature (a
   * call a second would fill the audit log), it asks again only when an event names the target (full check).
   */
  const startOf = new Map<string, number>();
  const graphNames = new Map<string, string>();
  /** The handoffs and graphs bounded now: an event naming one of them asks for a full check. */
  let watched = new Set<string>();

  const operator = (): Caller | null => {
    const record = ctx.room.participants.operator();
    return record ? toCaller(record) : null;
  };
  const nowMs = () => Date.parse(ctx.now());

  /** How long a run's client has sat idle or waiting at its prompt, or null while it works (or has no terminal). */
  function idleOf(run: AgentRunRef): number | null {
    try {
      const terminal = run.terminal();
      if (!terminal) return null;
      const status = viewOf(terminal).status;
      return status.state === 'idle' || status.state === 'waiting' ? nowMs() - Date.parse(status.since) : null;
    } catch {
      return null;
    }
  }

  const alive = (run: AgentRunRef): boolean => run.terminal()?.alive ?? false;

  /** What the envelope reads now: over a limit, its target ended, or neither (null). `full`: read the handoff or graph again. */
  async function reading(op: Caller, e: EnvelopeView, runs: AgentRunRef[], full: boolean): Promise<Over | 'ended' | null> {
    if (e.scope === 'agent') {
      const run = runs.find((r) => r.shellId === e.target);
      if (!run || !alive(run)) return 'ended';
      const over = overOf(e, `${run.participant} (terminal ${run.shellId})`, repo.ofRun(run.shellId), nowMs() - Date.parse(run.startedAt), idleOf(run));
      return over && { ...over, runs: [run] };
    }
    if (e.scope === 'handoff') {
      if (full || !startOf.has(e.id)) {
        const handoff = await invoke(op, 'handoff_get', { handoffId: e.target }).then((r) => r.handoff, () => null);
        if (!handoff || !['open', 'accepted'].includes(handoff.status)) return 'ended';
        startOf.set(e.id, Date.parse(handoff.createdAt));
      }
      const mine = runs.filter((r) => r.handoffId === e.target && alive(r));
      const idles = mine.map((r) => idleOf(r));
      const idle = mine.length > 0 && idles.every((i) => i !== null) ? Math.min(...(idles as number[])) : null;
      const over = overOf(e, `the work on handoff ${e.target}`, repo.ofHandoff(e.target), nowMs() - (startOf.get(e.id) ?? nowMs()), idle);
      return over && { ...over, runs: mine };
    }
    if (full || !startOf.has(e.id)) {
      const graph = await invoke(op, 'tasks_status', { graphId: e.target }).then((r) => r.graph, () => null);
      if (!graph || (graph.state !== 'pending' && graph.state !== 'running')) return 'ended';
      startOf.set(e.id, Date.parse(graph.startedAt ?? graph.createdAt));
      graphNames.set(e.id, graph.name ?? e.target);
    }
    const over = overOf(e, `graph ${graphNames.get(e.id) ?? e.target}`, NO_USAGE, nowMs() - (startOf.get(e.id) ?? nowMs()), null);
    return over && { ...over, runs: [] };
  }

  async function noteAuthor(op: Caller): Promise<Caller> {
    let record = ctx.room.participants.byName(NOTE_AUTHOR);
    if (!record) {
      // its token is dropped here: no one but the room acts as it
      await invoke(op, 'participant_add', { name: NOTE_AUTHOR, capabilities: ['read', 'write'] });
      record = ctx.room.participants.byName(NOTE_AUTHOR);
    }
    if (!record || record.revokedAt !== null) throw new Error(`${NOTE_AUTHOR} was revoked: the room has no one to hand the note`);
    return toCaller(record);
  }

  async function stopRun(op: Caller, run: AgentRunRef): Promise<void> {
    try {
      // its terminal, on this machine or on its host (the keys then sent there)
      if (run.terminal()?.alive) {
        run.type(INTERRUPT_KEY[run.client] ?? '\x03');
        await invoke(op, 'shell_io', { shellId: run.shellId, wait: { until: 'status', status: ['idle', 'waiting', 'exited'], timeoutMs: SAFE_POINT_MS } }).catch(() => undefined);
      }
    } catch {
      // its terminal is already gone: nothing to interrupt
    }
    await invoke(op, 'agent_stop', { shellId: run.shellId }).catch(() => undefined);
  }

  async function stop(op: Caller, e: EnvelopeView, over: Over): Promise<void> {
    const at = ctx.now();
    if (!ctx.commit(() => ({ value: repo.markStopped(e.id, over.limit, over.text, at), events: [] }))) return;
    for (const run of over.runs) await stopRun(op, run);
    let cancelled = false;
    if (e.scope === 'graph') cancelled = await invoke(op, 'tasks_cancel', { graphId: e.target }).then(() => true, () => false);
    const summary = `stopped by its envelope: ${over.limit} — ${over.text}`.slice(0, 1000);
    const what = e.scope === 'agent' ? `agent run in terminal ${e.target}` : e.scope === 'handoff' ? `the agents on handoff ${e.target}` : `graph ${e.target}`;
    const constraints =
      `The room stopped ${what} at its envelope's ${over.limit} limit` +
      (over.runs.length > 0 ? `: ${over.runs.map((r) => r.participant).join(', ')} interrupted and stopped (its conversation kept: Start again resumes it)` : cancelled ? ': its stages cancelled' : '') +
      '. Raise or clear the envelope (ce envelope set / clear) before going on; cancel this note when you have read it.';
    const note = await noteAuthor(op)
      .then((author) => invoke(author, 'handoff_create', { summary, to: op.name, constraints }))
      .then(
        (r) => r.handoff.id,
        (error: unknown) => (console.error(`[spend] the inbox note of a stop could not be made: ${error instanceof Error ? error.message : 'unknown'}`), null),
      );
    ctx.commit(() => ({
      value: undefined,
      events: [{ kind: 'envelope.stopped', actor: null, subject: e.target, data: { scope: e.scope, limit: over.limit, text: over.text, participants: over.runs.map((r) => r.participant), note } }],
    }));
  }

  async function checkOnce(full: boolean): Promise<void> {
    const active = repo.activeEnvelopes();
    watched = new Set(active.filter((e) => e.scope !== 'agent').map((e) => e.target));
    for (const id of startOf.keys()) {
      if (active.some((e) => e.id === id)) continue;
      startOf.delete(id);
      graphNames.delete(id);
    }
    if (active.length === 0) return;
    const op = operator();
    if (!op) return;
    const runs = liveRuns();
    for (const e of active) {
      if (closed) return;
      const found = await reading(op, e, runs, full);
      if (found === 'ended') ctx.commit(() => ({ value: repo.markEnded(e.id), events: [] }));
      else if (found) await stop(op, e, found);
    }
  }

  /** One check at a time; a call while one runs asks for another after it. */
  function check(full: boolean): Promise<void> {
    if (closed) return Promise.resolve();
    if (checking) {
      again = true;
      againFull ||= full;
      return checking;
    }
    checking = (async () => {
      try {
        let thisFull = full;
        do {
          again = false;
          await checkOnce(thisFull);
          thisFull = againFull;
          againFull = false;
        } while (again && !closed);
      } catch (error) {
        if (!closed) console.error(`[spend] an envelope check failed: ${error instanceof Error ? error.message : 'unknown'}`);
      } finally {
        checking = null;
      }
    })();
    return checking;
  }

  return {
    start(tickMs: number): void {
      timer = setInterval(() => void check(false), tickMs);
      timer.unref();
      // a bounded handoff or graph that changes (ended, cancelled, approved) is read again at once
      stopListening = ctx.bus.subscribe((event) => {
        const graphId = (event.data as { graphId?: unknown } | null)?.graphId;
        if ((event.subject && watched.has(event.subject)) || (typeof graphId === 'string' && watched.has(graphId))) void check(true);
      });
    },
    usageArrived(_run: AgentRunRef): void {
      void check(false);
    },
    kick(): void {
      void check(true);
    },
    close(): void {
      closed = true;
      if (timer) clearInterval(timer);
      stopListening?.();
    },
  };
}
