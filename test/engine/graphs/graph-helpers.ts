import fs from 'node:fs';
import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../../src-main/common/contract';
import type { GraphView, StageView } from '../../../src-main/common/methods/graphs';
import { Engine } from '../../../src-main/engine/engine';
import { Room } from '../../../src-main/engine/room/room';
import { makeHome, type TestHome } from '../../helpers/env';

export interface GraphBench {
  home: TestHome;
  engine: Engine;
  markdown: string;
  dir: string;
  run(input: MethodInput<'tasks_run'>): Promise<MethodOutputs['tasks_run']>;
  status(graphId: string): Promise<{ graph: GraphView; stages: StageView[] }>;
  waitEnded(graphId: string, timeoutMs?: number): Promise<{ graph: GraphView; stages: StageView[] }>;
  stage(graphId: string, stageId: string): Promise<StageView>;
  logText(graphId: string, stageId: string): Promise<string>;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export async function openBench(): Promise<GraphBench> {
  const home = makeHome();
  const dir = path.join(home.root, 'work');
  fs.mkdirSync(dir);
  const markdown = path.join(dir, 'room.md');
  const bench: GraphBench = {
    home,
    engine: await Engine.start(Room.open({ markdown, paths: home.paths })),
    markdown,
    dir,
    run: (input) => bench.engine.call(bench.engine.operator(), 'tasks_run', input),
    status: async (graphId) => (await bench.engine.call(bench.engine.operator(), 'tasks_status', { graphId })) as { graph: GraphView; stages: StageView[] },
    async waitEnded(graphId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await bench.status(graphId);
        if (s.graph.state !== 'pending' && s.graph.state !== 'running') return s;
        if (Date.now() > deadline) throw new Error(`graph did not end: ${JSON.stringify(s, null, 1)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stage(graphId, stageId) {
      const s = await bench.status(graphId);
      const found = s.stages.find((x) => x.id === stageId);
      if (!found) throw new Error(`no stage ${stageId}`);
      return found;
    },
    async logText(graphId, stageId) {
      const out = (await bench.engine.call(bench.engine.operator(), 'tasks_status', { graphId, stageId, cursor: 'start', maxBytes: 65536 })) as {
        log: { records: { stream: string; text: string }[] };
      };
      return out.log.records.filter((r) => r.stream !== 'runner').map((r) => r.text).join('');
    },
    async reopen() {
      await bench.engine.close();
      bench.engine = await Engine.start(Room.open({ markdown, paths: home.paths }));
    },
    async close() {
      await bench.engine.close();
      home.cleanup();
    },
  };
  return bench;
}

/** Lines appended to a shared file by stages: "start X" / "end X", in the order they happened. */
export function orderLines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** A shell stage that records its start and end in `file` and sleeps a little in between. */
export function traced(file: string, id: string, sleep = 0.15, exit = 0): string {
  return `echo "start ${id}" >> ${file}; sleep ${sleep}; echo "end ${id}" >> ${file}; echo "${id} says hi"; exit ${exit}`;
}

/** Highest number of stages between their start and end at once. */
export function maxOverlap(lines: string[]): number {
  let now = 0;
  let max = 0;
  for (const l of lines) {
    now += l.startsWith('start ') ? 1 : -1;
    max = Math.max(max, now);
  }
  return max;
}

export function expectBefore(lines: string[], first: string, then: string): void {
  const a = lines.indexOf(first);
  const b = lines.indexOf(then);
  if (a < 0 || b < 0 || a > b) throw new Error(`expected "${first}" before "${then}" in:\n${lines.join('\n')}`);
}
