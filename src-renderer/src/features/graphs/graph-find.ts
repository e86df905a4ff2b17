import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';

/** What the person narrows a big graph to: text in a stage's id or command, and a state ('' = any). */
export interface StageQuery {
  text: string;
  state: string;
}

/** The stages a query picks out, in the graph's order; null when the query picks nothing out (show all). */
export function matchingStages(stages: readonly GraphTopologyNode[], query: StageQuery): Set<string> | null {
  const text = query.text.trim().toLowerCase();
  if (text === '' && query.state === '') return null;
  const out = new Set<string>();
  for (const s of stages) {
    if (query.state !== '' && s.state !== query.state) continue;
    if (text !== '') {
      const command = Array.isArray(s.command) ? s.command.join(' ') : s.command;
      if (!s.id.toLowerCase().includes(text) && !command.toLowerCase().includes(text)) continue;
    }
    out.add(s.id);
  }
  return out;
}

/** The next stage after `current` (in the graph's order, wrapping) that `pick` accepts; null when none does. */
export function nextStage(stages: readonly GraphTopologyNode[], current: string | null, pick: (s: GraphTopologyNode) => boolean): string | null {
  const at = current === null ? -1 : stages.findIndex((s) => s.id === current);
  for (let step = 1; step <= stages.length; step++) {
    const s = stages[(at + step + stages.length) % stages.length];
    if (s && pick(s)) return s.id;
  }
  return null;
}

/** A stage that ended badly and may hold the cause: failed (a non-zero exit, a timeout, a lost runner). */
export const isFailure = (s: GraphTopologyNode): boolean => s.state === 'failed';
