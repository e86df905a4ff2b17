import type { AgentWatchView, LimitPolicy, StallPolicy } from '../../common/methods/agents';
import type { ShellCondition } from '../../common/methods/shells';
import { RoomError } from '../../common/errors';
import type { PtyShell } from '../shells/index';
import { limitKey, limitLines, LimitWatch } from './limit-watch';
import { screenWords, StallWatch, type TreeSample } from './stall-watch';

/** An agent's watch settings: how long quiet reads stalled, and the person's policies. */
export interface WatchPolicy {
  stallMs: number;
  onStall: StallPolicy;
  onLimit: LimitPolicy;
}

/** What the watch needs of the room (agents-feature.ts hands it). */
export interface WatchHooks {
  /** The live terminal of a run, or null. */
  shell(shellId: string): PtyShell | null;
  /** The room's clock (a test may move it). */
  now(): Date;
  /** Monotonic milliseconds. */
  elapsed(): number;
  /** One event of the agent's (Activity; the summary reads them). */
  record(kind: string, participant: string, data: Record<string, unknown>): void;
  /** Ends the run and starts it again going on with its conversation; the new run's shell id. */
  restart(shellId: string): Promise<string>;
  /**
   * One look at the live runs' process trees, by shell id: a sample, or null where none can be read (the terminal
   * alone says); a run left out is not known now (its host out of reach): it is not looked at this time.
   */
  trees(live: { shellId: string; shell: PtyShell }[]): Promise<Map<string, TreeSample | null>>;
  /** Types the room's keys into a run's terminal (on a host: sent there). */
  type(shellId: string, shell: PtyShell, bytes: string, by: string): void;
}

/** One run as the watch sees it. */
export interface WatchedAgent {
  shellId: string;
  participant: string;
  /** Its client's interrupt key and continue, and its limit lines. */
  interrupt: string;
  continueText: string | null;
  limitRules: readonly RegExp[];
}

interface Entry extends WatchedAgent {
  policy: WatchPolicy;
  stall: StallWatch;
  limit: LimitWatch;
  stalled: { since: string; quietSince: string; acted: boolean } | null;
  /**
   * The room interrupted it, or started it again on a stall, and it has not read other than working since: a new
   * stall is told, not acted on again (no Esc again and again, no restart after restart).
   */
  acted: boolean;
  limited: { since: string; text: string; until: Date | null; resumeAt: Date | null; inputAt: number; told: boolean } | null;
}

/** Who the room's own keys are typed as (the input records of the terminal say so). */
const ROOM = 'commonroom';

/**
 * The watch of the agents the room started: on every tick, each live one is looked at for a stall
 * (stall-watch.ts) and for a usage limit on its screen (limit-watch.ts), and its policy is followed. Every step
 * first checks again that it still holds (still stalled on the next look; still limited, with no one having
 * typed since) and is an event: agent.stalled, agent.stall_interrupted, agent.stall_restarted, agent.stall_ended;
 * agent.limited, agent.limit_reset, agent.limit_resumed, agent.limit_resume_cancelled, agent.limit_ended.
 * Nothing is typed into an agent at a limit unless its policy (or the person, agent_limit) says so.
 */
export class AgentWatch {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly hooks: WatchHooks,
    private readonly tickMs: number,
  ) {}

  add(agent: WatchedAgent, policy: WatchPolicy): void {
    this.entries.set(agent.shellId, { ...agent, policy, stall: new StallWatch(), limit: new LimitWatch(agent.limitRules), stalled: null, limited: null, acted: false });
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  remove(shellId: string): void {
    this.entries.delete(shellId);
    if (this.entries.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    this.entries.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A run's terminal as the watch reads it (a run on a host: the room's copy of it), or null: gone. */
  terminal(shellId: string): PtyShell | null {
    return this.hooks.shell(shellId);
  }

  /** Types the room's keys into a run's terminal (a run on a host: sent there), as the room's policies do. */
  typeInto(shellId: string, bytes: string): void {
    const shell = this.hooks.shell(shellId);
    if (shell) this.hooks.type(shellId, shell, bytes, ROOM);
  }

  policyOf(shellId: string): WatchPolicy | null {
    return this.entries.get(shellId)?.policy ?? null;
  }

  view(shellId: string, fallback: WatchPolicy): AgentWatchView {
    const e = this.entries.get(shellId);
    const policy = e?.policy ?? fallback;
    const limited = e?.limited ? { since: e.limited.since, text: e.limited.text, until: e.limited.until?.toISOString() ?? null, resumeAt: e.limited.resumeAt?.toISOString() ?? null } : null;
    return { ...policy, stalled: e?.stalled ? { since: e.stalled.since, quietSince: e.stalled.quietSince } : null, limited, limitedUntil: limited?.until ?? null };
  }

  /** agent_watch: a new policy for a run (a resume already counted down to follows the new onLimit). */
  change(shellId: string, changes: Partial<WatchPolicy>): void {
    const e = this.need(shellId);
    e.policy = { ...e.policy, ...changes };
    if (e.limited && changes.onLimit !== undefined) e.limited.resumeAt = changes.onLimit === 'resume' ? e.limited.until : null;
    this.show(e);
  }

  /** agent_limit: the person resumes a limited agent at its reset or now, or cancels the resume counted down to. */
  limitAction(shellId: string, action: 'resume_at_reset' | 'resume_now' | 'cancel', by: string): void {
    const e = this.need(shellId);
    if (!e.limited) throw new RoomError('CONFLICT', `${e.participant} is not stopped at a usage limit now: nothing to resume or cancel`);
    if (action === 'cancel') {
      const had = e.limited.resumeAt;
      e.limited.resumeAt = null;
      this.hooks.record('agent.limit_resume_cancelled', e.participant, { shellId, by, resumeAt: had?.toISOString() ?? null });
    } else if (action === 'resume_at_reset') {
      if (!e.limited.until) throw new RoomError('CONFLICT', `${e.participant}'s client showed no reset time: resume it now (action resume_now) when you know the limit has reset`);
      e.limited.resumeAt = e.limited.until;
    } else {
      this.resume(e, by);
      return;
    }
    this.show(e);
  }

  /** One look at every live run (also what a test calls instead of waiting for the timer). */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const live = [...this.entries.values()].flatMap((e) => {
        const shell = this.hooks.shell(e.shellId);
        return shell && shell.alive ? [{ e, shell, shellId: e.shellId }] : [];
      });
      // one look at the process table for every run (a /proc scan costs ~25 ms on a busy machine; a host's, one call)
      const trees = await this.hooks.trees(live);
      for (const { e, shell } of live) {
        if (!this.entries.has(e.shellId)) continue; // ended meanwhile
        // its host out of reach: nothing is known of it now, and its quiet so far is not counted on
        if (!trees.has(e.shellId)) e.stall.reset();
        else await this.lookAt(e, shell, trees.get(e.shellId) ?? null);
      }
    } finally {
      this.busy = false;
    }
  }

  private async lookAt(e: Entry, shell: PtyShell, tree: TreeSample | null): Promise<void> {
    const now = this.hooks.now();
    const lines = e.limit.reads ? shell.screen.visibleLines() : [];
    const seen = e.limit.look(lines, now);
    if (seen && !(e.limited && limitKey(e.limited.text) === limitKey(seen.text))) {
      const resumeAt = e.policy.onLimit === 'resume' ? seen.until : null;
      e.limited = { since: now.toISOString(), text: seen.text, until: seen.until, resumeAt, inputAt: shell.lastInputAt, told: false };
      e.stalled = null;
      e.stall.reset();
      this.hooks.record('agent.limited', e.participant, { shellId: e.shellId, text: seen.text, until: seen.until?.toISOString() ?? null, policy: e.policy.onLimit });
    } else if (e.limited) {
      if (shell.lastInputAt > e.limited.inputAt) {
        // someone typed into it: the person took it in hand
        this.hooks.record('agent.limit_ended', e.participant, { shellId: e.shellId, text: e.limited.text, reason: 'typed into' });
        e.limited = null;
      } else if (e.limited.until && now >= e.limited.until) {
        if (e.limited.resumeAt && now >= e.limited.resumeAt) {
          // still limited? its limit line still on screen, no one typed since: type its continue
          const key = limitKey(e.limited.text);
          if (limitLines(e.limitRules, lines).some((l) => limitKey(l.text) === key)) this.resume(e, ROOM);
          else {
            this.hooks.record('agent.limit_ended', e.participant, { shellId: e.shellId, text: e.limited.text, reason: 'gone from its screen' });
            e.limited = null;
          }
        } else if (!e.limited.told) {
          e.limited.told = true;
          this.hooks.record('agent.limit_reset', e.participant, { shellId: e.shellId, text: e.limited.text, until: e.limited.until.toISOString(), policy: e.policy.onLimit, ...(e.continueText === null ? { retriesItself: true } : {}) });
        }
      }
    }
    if (!e.limited) await this.lookForStall(e, shell, lines, now, tree);
    this.show(e);
  }

  private async lookForStall(e: Entry, shell: PtyShell, lines: string[], now: Date, tree: TreeSample | null): Promise<void> {
    const working = shell.status.status.state === 'working';
    if (!working) e.acted = false;
    const quietMs = e.stall.look({
      at: this.hooks.elapsed(),
      working,
      screen: lines.length > 0 ? screenWords(lines) : String(shell.ring.end),
      inputAt: shell.lastInputAt,
      tree,
    });
    if (e.stalled && quietMs === 0) {
      this.hooks.record('agent.stall_ended', e.participant, { shellId: e.shellId, stalledMs: now.getTime() - Date.parse(e.stalled.since), after: e.stalled.acted ? e.policy.onStall : 'movement' });
      e.stalled = null;
      return;
    }
    if (quietMs < e.policy.stallMs) return;
    if (!e.stalled) {
      e.stalled = { since: now.toISOString(), quietSince: new Date(now.getTime() - quietMs).toISOString(), acted: false };
      // acted on once already (interrupted, or this run is the restart) and never at rest since: told this time
      const again = e.policy.onStall !== 'tell' && e.acted;
      if (again) e.stalled.acted = true;
      this.hooks.record('agent.stalled', e.participant, { shellId: e.shellId, quietMs, policy: again ? 'tell' : e.policy.onStall, ...(again ? { actedBefore: true } : {}) });
      return; // its policy acts on the next look, if it is still stalled then
    }
    if (e.stalled.acted || e.policy.onStall === 'tell') return;
    e.stalled.acted = true;
    if (e.policy.onStall === 'interrupt') {
      e.acted = true;
      this.hooks.type(e.shellId, shell, e.interrupt, ROOM);
      this.hooks.record('agent.stall_interrupted', e.participant, { shellId: e.shellId, quietMs, key: keyName(e.interrupt) });
      return;
    }
    try {
      const next = await this.hooks.restart(e.shellId);
      const started = this.entries.get(next);
      if (started) started.acted = true; // the new run is not restarted again before it has rested once
      this.hooks.record('agent.stall_restarted', e.participant, { shellId: e.shellId, newShellId: next, quietMs });
    } catch (error) {
      this.hooks.record('agent.stall_restart_failed', e.participant, { shellId: e.shellId, error: (error as Error).message });
    }
  }

  private resume(e: Entry, by: string): void {
    const shell = this.hooks.shell(e.shellId);
    if (!shell || !shell.alive) throw new RoomError('CONFLICT', `${e.participant}'s terminal has ended: start it again instead`);
    const text = e.limited?.text ?? '';
    if (e.continueText === null) {
      // its client retries by itself at the reset: nothing is typed, by the room or for the person
      if (by !== ROOM) throw new RoomError('CONFLICT', `${e.participant}'s client retries by itself at its reset (it counts down on its status line): to go on sooner, interrupt it (Esc) in its terminal and send your prompt again`);
    } else {
      this.hooks.type(e.shellId, shell, `${e.continueText}\r`, by);
    }
    this.hooks.record('agent.limit_resumed', e.participant, { shellId: e.shellId, text, by, typed: e.continueText });
    e.limited = null;
    e.limit = new LimitWatch(e.limitRules);
    e.limit.look(shell.screen.visibleLines(), this.hooks.now()); // the message it went on from is not a new one
    this.show(e);
  }

  private show(e: Entry): void {
    const condition: ShellCondition = {};
    const v = this.view(e.shellId, e.policy);
    if (v.stalled) condition.stalled = v.stalled;
    if (v.limited) condition.limited = v.limited;
    this.hooks.shell(e.shellId)?.setCondition(Object.keys(condition).length > 0 ? condition : null);
  }

  private need(shellId: string): Entry {
    const e = this.entries.get(shellId);
    if (!e) throw new RoomError('NOT_FOUND', `no agent the room started runs in shell ${shellId}: see "ce agent list"`);
    return e;
  }
}

function keyName(key: string): string {
  return key === '\x1b' ? 'Esc' : key === '\x03' ? 'Ctrl-C' : JSON.stringify(key);
}
