/**
 * The room's event history (workspace_history), live: read page by page from the oldest kept event when the
 * link opens (first time and after every reconnect), then from the last cursor on every change-feed hint,
 * coalesced. The engine's ring keeps only the newest events; `dropped` says when older ones are gone.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EventView } from '../../../src-main/common/handoff-dto';
import type { EngineClient } from '../engine-client';
import { coalesced, describeError } from './coalesced-read';

/** How many events the screen keeps (the engine's ring keeps 2,000). */
export const KEEP_EVENTS = 2000;

export interface ActivitySlice {
  /** Oldest first, as the engine pages them. */
  events: EventView[];
  loaded: boolean;
  /** Older events the engine no longer keeps (or this screen let go of). */
  dropped: boolean;
  error: string | null;
  refresh(): Promise<void>;
}

export function createActivityStore(client: EngineClient): StoreApi<ActivitySlice> & { dispose(): void } {
  // the feed's opaque cursor, and the id of the newest event read (to tell whether the ring dropped any since)
  let cursor: string | undefined;
  let lastId = 0;
  let restart = true;
  const store = createStore<ActivitySlice>((set, get) => {
    const read = coalesced(async () => {
      try {
        const fresh = restart;
        let next = fresh ? undefined : cursor;
        let after = fresh ? 0 : lastId;
        let events = fresh ? [] : get().events;
        let dropped = fresh ? false : get().dropped;
        for (let pages = 0; pages < 50; pages++) {
          const page = await client.call('workspace_history', { ...(next ? { cursor: next } : {}), limit: 200 });
          // the ring lost events between our cursor and its oldest kept one
          if (page.oldestRetainedId !== null && page.oldestRetainedId > after + 1) dropped = true;
          if (page.events.length > 0) events = [...events, ...page.events];
          after = page.events.at(-1)?.id ?? after;
          next = page.nextCursor;
          if (!page.more) break;
        }
        if (events.length > KEEP_EVENTS) {
          events = events.slice(events.length - KEEP_EVENTS);
          dropped = true;
        }
        cursor = next;
        lastId = after;
        restart = false;
        set({ events, dropped, loaded: true, error: null });
      } catch (error) {
        set({ error: describeError(error, 'could not read the history') });
      }
    });
    return { events: [], loaded: false, dropped: false, error: null, refresh: read };
  });
  const offs = [
    client.onState((state) => {
      if (state === 'open') {
        restart = true;
        void store.getState().refresh();
      }
    }),
    client.on(() => void store.getState().refresh()),
  ];
  if (client.state === 'open') void store.getState().refresh();
  return Object.assign(store, { dispose: () => offs.forEach((off) => off()) });
}
