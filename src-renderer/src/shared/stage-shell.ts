import { useEffect, useState } from 'react';
import type { ShellView } from '../../../src-main/common/methods/shells';
import type { EngineClient } from '../engine-client';

/** The graph stage a tty stage's shell shows (its command is `stage <graphId>:<stageId>`, its name ends `#attempt`). */
export interface StageRef {
  graphId: string;
  stageId: string;
  attempt: number;
}

export function stageOf(shell: ShellView): StageRef | null {
  const task = shell.command[0] === 'stage' ? shell.command[1] : undefined;
  if (!task) return null;
  const cut = task.indexOf(':');
  if (cut <= 0) return null;
  return { graphId: task.slice(0, cut), stageId: task.slice(cut + 1), attempt: Number(/#(\d+)$/.exec(shell.name)?.[1] ?? 1) };
}

const names = new Map<string, string>();

/** A graph's name (read once per page from tasks_status; its id until then, or when it cannot be read). */
export function useGraphName(client: EngineClient, graphId: string | null): string | null {
  const [name, setName] = useState(graphId ? (names.get(graphId) ?? null) : null);
  useEffect(() => {
    if (!graphId || names.has(graphId)) return;
    let live = true;
    client.call('tasks_status', { graphId, stages: false }).then(
      ({ graph }) => {
        const shown = graph.name ?? graph.graphId;
        names.set(graphId, shown);
        if (live) setName(shown);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, graphId]);
  return name;
}

/** What a person calls a stage's shell: the stage, of which graph, and which attempt after the first. */
export function stageShellName(stage: StageRef, graphName: string | null): string {
  return `${stage.stageId} · ${graphName ?? stage.graphId}${stage.attempt > 1 ? ` (attempt ${stage.attempt})` : ''}`;
}
