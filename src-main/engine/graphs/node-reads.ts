import type { Room } from '../room/index';
import { GraphRepo } from '../store/graphs';

/**
 * What a room node (server/room-node.ts) reads of its own graphs: the run of a stage placed on it by name (so
 * a stage asked for twice runs once), and whether any graph is still running (a node with work never idles out).
 */
export interface NodeGraphReads {
  named(name: string): string | null;
  unfinished(): number;
}

export function nodeGraphReads(room: Room): NodeGraphReads {
  const repo = new GraphRepo(room.db);
  return {
    named: (name) => repo.named(name)?.id ?? null,
    unfinished: () => repo.countUnfinished(),
  };
}
