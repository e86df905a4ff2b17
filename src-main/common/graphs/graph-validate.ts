import { RoomError } from '../errors';
import { LIMITS } from '../limits';

/** What graph validation needs of a stage. */
export interface GraphNode {
  id: string;
  dependsOn?: readonly string[] | undefined;
}

/**
 * Refuses a graph that cannot run, before anything is written: empty, too big, a duplicate id, a dependency
 * on a stage that does not exist, or a cycle (named, e.g. "a → b → c → a"). Returns the stages in a
 * dependency order (submission order among independent stages).
 */
export function validateGraph(stages: readonly GraphNode[], maxStages: number = LIMITS.maxGraphStages): string[] {
  if (stages.length === 0) throw new RoomError('INVALID_INPUT', 'a graph needs at least one stage');
  if (stages.length > maxStages) {
    throw new RoomError('LIMIT_EXCEEDED', `a graph may have at most ${maxStages} stages (this one has ${stages.length}): split it into several graphs`);
  }
  const byId = new Map<string, GraphNode>();
  for (const stage of stages) {
    if (byId.has(stage.id)) throw new RoomError('INVALID_INPUT', `two stages have the id "${stage.id}": stage ids must be unique`, { stageId: stage.id });
    byId.set(stage.id, stage);
  }
  for (const stage of stages) {
    const seen = new Set<string>();
    for (const dep of stage.dependsOn ?? []) {
      if (!byId.has(dep)) {
        throw new RoomError('INVALID_INPUT', `stage "${stage.id}" depends on "${dep}", which is not a stage of this graph`, { stageId: stage.id, dependsOn: dep });
      }
      if (seen.has(dep)) throw new RoomError('INVALID_INPUT', `stage "${stage.id}" lists "${dep}" twice in dependsOn`, { stageId: stage.id });
      seen.add(dep);
    }
  }
  const cycle = findCycle(stages);
  if (cycle) {
    throw new RoomError('INVALID_INPUT', `the graph has a cycle: ${cycle.join(' → ')}; remove one of these dependencies`, { cycle });
  }
  return topologicalOrder(stages);
}

/** The first cycle found, as a closed path (first id repeated at the end), or null. Iterative: no stack overflow. */
export function findCycle(stages: readonly GraphNode[]): string[] | null {
  const deps = new Map(stages.map((s) => [s.id, s.dependsOn ?? []] as const));
  const color = new Map<string, 'grey' | 'black'>();
  for (const start of stages) {
    if (color.has(start.id)) continue;
    const path: string[] = [];
    const stack: { id: string; next: number }[] = [{ id: start.id, next: 0 }];
    color.set(start.id, 'grey');
    path.push(start.id);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; next: number };
      const children = deps.get(top.id) ?? [];
      if (top.next >= children.length) {
        color.set(top.id, 'black');
        stack.pop();
        path.pop();
        continue;
      }
      const child = children[top.next++] as string;
      const c = color.get(child);
      if (c === 'grey') {
        // the path from child to top, then back to child; reversed so it reads in run order (dependency first)
        const from = path.indexOf(child);
        const loop = path.slice(from);
        return [...loop, child].reverse();
      }
      if (c === undefined) {
        color.set(child, 'grey');
        path.push(child);
        stack.push({ id: child, next: 0 });
      }
    }
  }
  return null;
}

/**
 * Kahn's algorithm by levels, stable with respect to submission order: a stage's level is one more than its
 * deepest dependency's, and stages come out by level, then in submission order. Linear (a chain of 10,000
 * stages must not cost 10,000 passes over the rest). Assumes no cycle.
 */
export function topologicalOrder(stages: readonly GraphNode[]): string[] {
  const index = new Map(stages.map((s, i) => [s.id, i] as const));
  const pending = stages.map((s) => (s.dependsOn ?? []).length);
  const dependents: number[][] = stages.map(() => []);
  stages.forEach((s, i) => {
    for (const d of s.dependsOn ?? []) dependents[index.get(d) as number]?.push(i);
  });
  let frontier = stages.map((_, i) => i).filter((i) => pending[i] === 0);
  const byLevel: number[][] = [];
  let seen = 0;
  while (frontier.length > 0) {
    byLevel.push(frontier);
    seen += frontier.length;
    const next: number[] = [];
    for (const i of frontier) {
      for (const j of dependents[i] as number[]) {
        pending[j] = (pending[j] as number) - 1;
        if (pending[j] === 0) next.push(j);
      }
    }
    frontier = next.sort((a, b) => a - b);
  }
  if (seen < stages.length) throw new RoomError('INTERNAL', 'topologicalOrder called on a graph with a cycle');
  return byLevel.flat().map((i) => (stages[i] as GraphNode).id);
}
