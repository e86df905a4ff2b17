import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

/**
 * One owner per table (docs/architecture.md, "One change feed"): each table's rows are written by SQL in its
 * repository's file only, each repository is built only by the feature that owns it (a feature that needs
 * another's rows is handed them by engine.ts), and the writes of task and participant rows are called only
 * from their owners. test/engine/task-writers.test.ts shows the task layer refusing a bad write from every
 * writer; this keeps every other table to one writer by construction.
 */
const SRC = path.join(REPO, 'src-main');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : /\.tsx?$/.test(e.name) ? [full] : [];
  });
}
const files = sources(SRC).map((file) => ({ file: path.relative(SRC, file), text: fs.readFileSync(file, 'utf8') }));
/** `engine/<folder>` of a file (`engine` for the engine's root files). */
const folderOf = (file: string) => {
  const parts = file.split(path.sep);
  return parts[0] === 'engine' && parts.length > 2 ? `engine/${parts[1]}` : parts[0] === 'engine' ? 'engine' : (parts[0] as string);
};

/** Every table of the room (store/migrations) → the one file whose SQL writes it. */
const WRITTEN_IN: Record<string, string> = {
  audit: 'engine/store/audit.ts',
  events: 'engine/store/events.ts',
  graphs: 'engine/store/graphs.ts',
  graph_stages: 'engine/store/graphs.ts',
  graph_artifacts: 'engine/store/graphs.ts',
  handoffs: 'engine/store/handoffs.ts',
  participants: 'engine/store/participants.ts',
  tasks: 'engine/store/tasks.ts',
  workspaces: 'engine/store/workspaces.ts',
  workspace_intents: 'engine/store/workspaces.ts',
  workspace_files: 'engine/store/workspaces.ts',
  hosts: 'engine/store/hosts.ts',
  host_shells: 'engine/store/hosts.ts',
  schedules: 'engine/store/schedules.ts',
  schedule_runs: 'engine/store/schedules.ts',
  spend: 'engine/store/spend.ts',
  envelopes: 'engine/store/spend.ts',
  agent_watch_defaults: 'engine/store/agent-watch.ts',
  host_agent_runs: 'engine/store/host-agent-runs.ts',
  runner: 'engine/room/room.ts',
  meta: 'engine/room/room.ts',
};

/** Each repository → the feature folder that builds it (the room opens the ones a read-only reader needs too). */
const BUILT_BY: Record<string, string> = {
  AuditRepo: 'engine/people',
  EventRepo: 'engine/room',
  ParticipantRepo: 'engine/room',
  TaskRepo: 'engine/room',
  GraphRepo: 'engine/graphs',
  HandoffRepo: 'engine/handoffs',
  WorkspaceRepo: 'engine/workspaces',
  IntentRepo: 'engine/workspaces',
  HostRepo: 'engine/hosts',
  ScheduleRepo: 'engine/schedules',
  SpendRepo: 'engine/spend',
  AgentWatchRepo: 'engine/agents',
  HostAgentRunRepo: 'engine/agents',
};

describe('one owner per table', () => {
  it('every table of the migrations has its one writing file, and its rows are written by SQL there only', () => {
    const created = new Set(
      files
        .filter((f) => f.file.startsWith(path.join('engine', 'store', 'migrations')))
        .flatMap((f) => [...f.text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)].map((m) => m[1] as string)),
    );
    expect([...created].sort()).toEqual(Object.keys(WRITTEN_IN).sort());
    const writes: string[] = [];
    for (const { file, text } of files) {
      if (file.startsWith(path.join('engine', 'store', 'migrations'))) continue;
      for (const m of text.matchAll(/\b(?:INSERT(?: OR [A-Z]+)? INTO|REPLACE INTO|UPDATE|DELETE FROM)\s+([a-z_]+)\b/g)) {
        const table = m[1] as string;
        if (table in WRITTEN_IN && WRITTEN_IN[table] !== file.split(path.sep).join('/')) writes.push(`${file} writes ${table}`);
      }
    }
    expect(writes).toEqual([]);
  });

  it('each repository is built only by its owner (the others are handed it, or what they need of it, by engine.ts)', () => {
    const repos = new Set(files.filter((f) => f.file.startsWith(path.join('engine', 'store'))).flatMap((f) => [...f.text.matchAll(/export class (\w+Repo)\b/g)].map((m) => m[1] as string)));
    expect([...repos].sort()).toEqual(Object.keys(BUILT_BY).sort());
    const strays: string[] = [];
    for (const { file, text } of files) {
      for (const m of text.matchAll(/\bnew (\w+Repo)\(/g)) {
        const owner = BUILT_BY[m[1] as string];
        if (owner !== undefined && folderOf(file) !== owner) strays.push(`${file} builds ${m[1]} (owned by ${owner}/)`);
      }
    }
    expect(strays).toEqual([]);
  });

  it("task rows are written only through the task layer, participants' rows only by people/ (and the room's operator token)", () => {
    const strays: string[] = [];
    for (const { file, text } of files) {
      const folder = folderOf(file);
      if (folder === 'engine/store') continue;
      if (/\.(insertRow|updateRow|deleteRow)\(/.test(text) && folder !== 'engine/tasks') strays.push(`${file} writes task rows`);
      if (/\.(setTokenHash|reinstate|setWritableFolders)\(|participants\.(insert|revoke)\(/.test(text) && folder !== 'engine/people' && file !== path.join('engine', 'room', 'operator-token.ts')) {
        strays.push(`${file} writes participant rows`);
      }
    }
    expect(strays).toEqual([]);
  });
});
