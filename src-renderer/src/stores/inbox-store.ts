/**
 * What waits on the person: handoffs with a result to approve (result_ready), tasks asking for input
 * (input_required) and open handoffs addressed to the operator. Re-read with handoff_list when the link opens
 * and on every handoff.* hint of the change feed (coalesced); nothing polls. Items not seen in the previous
 * read are reported to `onArrived` (for the desktop notification); the first read reports nothing.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { HandoffView } from '../../../src-main/common/handoff-dto';
import type { EngineClient } from '../engine-client';
import { coalesced, describeError } from './coalesced-read';

/** approve: a result to decide on; input: a question to answer; addressed: work asked of the person; doing: work the person took on. */
export type WaitingKind = 'approve' | 'input' | 'addressed' | 'doing';

export interface InboxItem {
  handoff: HandoffView;
  kind: WaitingKind;
  /** Changes when the item needs the person again (a new result, a new question), so it counts as new. */
  key: string;
}

export interface InboxSlice {
  items: InboxItem[];
  loaded: boolean;
  error: string | null;
  selectedId: string | null;
  /** A handoff opened from elsewhere (an Activity entry): shown even when nothing about it waits. */
  openedId: string | null;
  select(id: string | null): void;
  open(id: string): void;
  refresh(): Promise<void>;
  dismissError(): void;
}

/** Why a handoff waits on `operator`, or null when it does not. */
export function waitingKind(h: HandoffView, operator: string): WaitingKind | null {
  if (h.status === 'result_ready') return 'approve';
  if (h.task?.status === 'input_required' && h.status === 'accepted') return 'input';
  if (h.status === 'open' && h.to === operator) return 'addressed';
  if (h.status === 'accepted' && h.assignee === operator) return 'doing';
  return null;
}

export function createInboxStore(
  client: EngineClient,
  onArrived: (items: InboxItem[]) => void = () => {},
): StoreApi<InboxSlice> & { dispose(): void } {
  let seen: Set<string> | null = null;
  const store = createStore<InboxSlice>((set, get) => {
    const read = coalesced(async () => {
      try {
        const { handoffs } = await client.call('handoff_list', { limit: 200 });
        const operator = client.identity?.operator ?? 'operator';
        const items: InboxItem[] = [];
        for (const handoff of handoffs) {
          const kind = waitingKind(handoff, operator);
          if (kind) items.push({ handoff, kind, key: `${handoff.id}:${kind}:${handoff.updatedAt}` });
        }
        items.sort((a, b) => (a.handoff.updatedAt < b.handoff.updatedAt ? 1 : -1));
        const arrived = seen ? items.filter((i) => !seen?.has(`${i.handoff.id}:${i.kind}`)) : [];
        seen = new Set(items.map((i) => `${i.handoff.id}:${i.kind}`));
        const selected = get().selectedId;
        const keep = selected !== null && (selected === get().openedId || items.some((i) => i.handoff.id === selected));
        set({ items, loaded: true, error: null, selectedId: keep ? selected : (items[0]?.handoff.id ?? null) });
        if (arrived.length > 0) onArrived(arrived);
      } catch (error) {
        set({ error: describeError(error, 'could not read the inbox') });
      }
    });
    return {
      items: [],
      loaded: false,
      error: null,
      selectedId: null,
      openedId: null,
      select: (id) => set({ selectedId: id, openedId: null }),
      open: (id) => set({ selectedId: id, openedId: id }),
      refresh: read,
      dismissError: () => set({ error: null }),
    };
  });
  const offs = [
    client.onState((state) => {
      if (state === 'open') void store.getState().refresh();
    }),
    client.on((event) => {
      if (event.kind.startsWith('handoff.')) void store.getState().refresh();
    }),
  ];
  if (client.state === 'open') void store.getState().refresh();
  return Object.assign(store, { dispose: () => offs.forEach((off) => off()) });
}
