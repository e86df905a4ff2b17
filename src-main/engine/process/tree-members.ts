import type { ProcessIdentity, ProcessRow } from './process-table';

/** What a kill aims at: a tag (or tag prefix), and maybe the tree's root process and its process group. */
export interface TreeTarget {
  tag: string;
  prefix?: boolean | undefined;
  pgid?: number | undefined;
  root?: ProcessIdentity | undefined;
}

/** A process that belonged to the tree at some look (maybe gone now), kept so its orphans are still found. */
export interface KnownMember {
  pid: number;
  startOrder: number;
}

export function tagMatches(tag: string | null, want: string, prefix: boolean): boolean {
  return tag !== null && (prefix ? tag.startsWith(want) : tag === want);
}

/**
 * Which live processes of `table` belong to the tree: the root (while it is the same process), its process
 * group, every process carrying the tag, and every descendant of any of these by parent link. A child counts
 * only if it started no earlier than its parent, so a process whose recorded parent id merely names a recycled
 * pid is not taken for a child. `known` are members of earlier looks that may be gone by now: on Windows an
 * orphan keeps its dead parent's id, so it is still found through them.
 */
export function treeMembers(table: ProcessRow[], target: TreeTarget, known: KnownMember[] = []): ProcessRow[] {
  const live = table.filter((r) => !r.zombie);
  const members = new Map<number, ProcessRow>();
  for (const r of live) {
    const isRoot = target.root !== undefined && r.pid === target.root.pid && r.startTime === target.root.startTime;
    const inGroup = target.pgid !== undefined && target.pgid > 0 && r.pgid === target.pgid;
    if (isRoot || inGroup || tagMatches(r.tag, target.tag, target.prefix ?? false)) members.set(r.pid, r);
  }
  const children = new Map<number, ProcessRow[]>();
  for (const r of live) {
    const list = children.get(r.ppid);
    if (list) list.push(r);
    else children.set(r.ppid, [r]);
  }
  // parents to walk from: the members, plus earlier members that are gone (and whose pid no live process reuses)
  const queue: KnownMember[] = [...members.values()];
  for (const k of known) if (!live.some((r) => r.pid === k.pid)) queue.push(k);
  while (queue.length > 0) {
    const parent = queue.pop() as KnownMember;
    for (const child of children.get(parent.pid) ?? []) {
      if (members.has(child.pid) || child.pid === parent.pid || child.startOrder < parent.startOrder) continue;
      members.set(child.pid, child);
      queue.push(child);
    }
  }
  return [...members.values()];
}
