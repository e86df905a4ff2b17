import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { findTagged } from '../../src-main/engine/process/process-tree';
import { makeHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { api, connectClient, type ToolClient } from './clients';

/**
 * Random SIGKILLs of a real `commonroom serve` under a mixed workload from clients of both eras. The clients
 * keep a ledger of what the runner acknowledged (handoff created/accepted/completed, graph submitted); after
 * every restart the room file is checked against it. Every broken promise is a violation, counted by kind.
 */
const RANK: Record<string, number> = { open: 0, accepted: 1, result_ready: 2, approved: 3, rejected: 3, cancelled: 3 };
/** The task status a handoff's own status implies: a handoff and its task must never disagree. */
const TASK_FOR: Record<string, string[]> = {
  open: ['working', 'input_required'],
  accepted: ['working', 'input_required'],
  result_ready: ['completed'],
  approved: ['completed'],
  rejected: ['completed'],
  cancelled: ['cancelled'],
};

export interface KillTally {
  rounds: number;
  ackedHandoffChanges: number;
  ackedGraphs: number;
  failedAtKill: number;
  violations: Record<string, number>;
  details: string[];
}

interface Ledger {
  handoffs: Map<string, string>; // id → last acknowledged status
  graphs: Set<string>;
}

function violate(t: KillTally, kind: string, detail: string) {
  t.violations[kind] = (t.violations[kind] ?? 0) + 1;
  if (t.details.length < 20) t.details.push(`${kind}: ${detail}`);
}

/** One client's loop until `stop`: handoffs go through their lifecycle, graphs are submitted. */
async function workload(kind: 'creator' | 'worker' | 'graphs', client: ToolClient, serve: ServeProcess, round: number, ledger: Ledger, stop: { now: boolean }, tally: KillTally) {
  let i = 0;
  while (!stop.now) {
    i++;
    try {
      if (kind === 'creator') {
        const { handoff } = await client.call<{ handoff: { id: string; status: string } }>('handoff_create', { summary: `soak r${round} #${i}`, to: 'worker', idempotency_key: `r${round}-${i}` });
        ledger.handoffs.set(handoff.id, handoff.status);
        tally.ackedHandoffChanges++;
      } else if (kind === 'worker') {
        const open = [...ledger.handoffs].filter(([, s]) => s === 'open' || s === 'accepted');
        const pick = open[Math.floor(Math.random() * open.length)];
        if (!pick) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        const [id, status] = pick;
        const tool = status === 'open' ? 'handoff_accept' : 'handoff_complete';
        const { handoff } = await client.call<{ handoff: { status: string } }>(tool, tool === 'handoff_accept' ? { handoffId: id } : { handoffId: id, result: `done ${id}` });
        ledger.handoffs.set(id, handoff.status);
        tally.ackedHandoffChanges++;
      } else {
        const { graphId } = await api<{ graphId: string }>(serve.mcpUrl, serve.token, 'tasks_run', {
          name: `soak r${round} g${i}`,
          maxParallel: 2,
          stages: [
            { id: 'a', command: `echo a${i}` },
            { id: 'b', command: 'sleep 0.05; echo b', dependsOn: ['a'] },
            { id: 'tree', command: `setsid sh -c 'exec sleep 300' & exec sleep 300` },
          ],
        });
        ledger.graphs.add(graphId);
        tally.ackedGraphs++;
      }
    } catch {
      // the kill lands mid-call: an unacknowledged change may or may not be there, both are fine
      tally.failedAtKill++;
      return;
    }
  }
}

function checkRoom(dbFile: string, roomId: string, ledger: Ledger, lastEventId: number, tally: KillTally, round: number): number {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') violate(tally, 'integrity', `round ${round}: ${String(integrity)}`);
    const handoffs = new Map((db.prepare('SELECT h.id, h.status, t.status AS task FROM handoffs h LEFT JOIN tasks t ON t.id = h.task_id').all() as { id: string; status: string; task: string | null }[]).map((r) => [r.id, r]));
    for (const [id, acked] of ledger.handoffs) {
      const row = handoffs.get(id);
      if (!row) violate(tally, 'lost-handoff', `round ${round}: ${id}`);
      else if ((RANK[row.status] ?? -1) < (RANK[acked] ?? 0)) violate(tally, 'lost-transition', `round ${round}: ${id} acked ${acked}, found ${row.status}`);
    }
    for (const row of handoffs.values()) {
      if (row.task !== null && !TASK_FOR[row.status]?.includes(row.task)) violate(tally, 'half-applied', `round ${round}: handoff ${row.id} ${row.status}, task ${row.task}`);
    }
    const graphs = new Set((db.prepare('SELECT id FROM graphs').all() as { id: string }[]).map((r) => r.id));
    for (const g of ledger.graphs) if (!graphs.has(g)) violate(tally, 'lost-graph', `round ${round}: ${g}`);
    const running = db.prepare("SELECT count(*) AS n FROM graph_stages WHERE state IN ('running', 'pending')").get() as { n: number };
    if (running.n > 0) violate(tally, 'still-running', `round ${round}: ${running.n} stage(s)`);
    const ids = (db.prepare('SELECT id FROM events ORDER BY rowid').all() as { id: number }[]).map((r) => r.id);
    for (let k = 1; k < ids.length; k++) if ((ids[k] as number) <= (ids[k - 1] as number)) violate(tally, 'event-order', `round ${round}: ${ids[k - 1]} then ${ids[k]}`);
    const max = ids.at(-1) ?? 0;
    if (max < lastEventId) violate(tally, 'event-ids-went-back', `round ${round}: ${max} < ${lastEventId}`);
    const alive = findTagged(`${roomId}:stage:`, { prefix: true });
    if (alive.length > 0) violate(tally, 'orphan-process', `round ${round}: ${alive.map((p) => p.pid).join(',')}`);
    return max;
  } finally {
    db.close();
  }
}

export async function runKillRounds(rounds: number): Promise<KillTally> {
  const home = makeHome();
  fs.mkdirSync(path.join(home.root, 'work'));
  const markdown = path.join(home.root, 'work', 'room.md');
  const dbFile = `${markdown}.commonroom.db`;
  const tally: KillTally = { rounds: 0, ackedHandoffChanges: 0, ackedGraphs: 0, failedAtKill: 0, violations: {}, details: [] };
  const ledger: Ledger = { handoffs: new Map(), graphs: new Set() };
  let serve = await startServe(home, ['--room', markdown]);
  try {
    const roomId = (await api<{ room: { id: string } }>(serve.mcpUrl, serve.token, 'room_info', {})).room.id;
    const tokens: Record<string, string> = {};
    for (const name of ['creator', 'worker']) tokens[name] = (await api<{ token: string }>(serve.mcpUrl, serve.token, 'participant_add', { name, capabilities: ['read', 'write'] })).token;
    let lastEventId = 0;
    for (let round = 0; round < rounds; round++) {
      const legacyFirst = round % 2 === 0;
      const creator = await connectClient(serve.mcpUrl, tokens.creator as string, legacyFirst ? 'legacy' : 'modern');
      const worker = await connectClient(serve.mcpUrl, tokens.worker as string, legacyFirst ? 'modern' : 'legacy');
      const stop = { now: false };
      const loops = [workload('creator', creator, serve, round, ledger, stop, tally), workload('worker', worker, serve, round, ledger, stop, tally), workload('graphs', creator, serve, round, ledger, stop, tally)];
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 600));
      serve.proc.kill('SIGKILL');
      await serve.exited;
      stop.now = true;
      await Promise.all(loops);
      await Promise.all([creator.close(), worker.close()]);
      serve = await startServe(home, ['--room', markdown]);
      lastEventId = checkRoom(dbFile, roomId, ledger, lastEventId, tally, round);
      tally.rounds++;
      // finished handoffs leave the worker's pick list short; the ledger keeps them for the checks
    }
  } finally {
    await stopServe(serve);
    home.cleanup();
  }
  return tally;
}
