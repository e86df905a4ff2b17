/**
 * The Inbox, Agents and Activity stores, created once per engine client on first use (so the window's
 * composition in main.tsx stays as it is). The inbox store starts with the sidebar (its badge and the
 * desktop notifications live there), the others when their screen first opens.
 */
import { useStore } from 'zustand';
import { useRoom } from '../room-context';
import type { EngineClient } from '../engine-client';
import { createActivityStore, type ActivitySlice } from './activity-store';
import { createInboxStore, type InboxItem, type InboxSlice } from './inbox-store';
import { createParticipantsStore, type ParticipantsSlice } from './participants-store';
import { notifyArrivals } from './notify';

interface FeatureStores {
  inbox?: ReturnType<typeof createInboxStore>;
  participants?: ReturnType<typeof createParticipantsStore>;
  activity?: ReturnType<typeof createActivityStore>;
}

const byClient = new WeakMap<EngineClient, FeatureStores>();

function storesOf(client: EngineClient): FeatureStores {
  let stores = byClient.get(client);
  if (!stores) {
    stores = {};
    byClient.set(client, stores);
  }
  return stores;
}

export function inboxStoreOf(client: EngineClient): ReturnType<typeof createInboxStore> {
  const stores = storesOf(client);
  stores.inbox ??= createInboxStore(client, (items: InboxItem[]) => notifyArrivals(items));
  return stores.inbox;
}

export function useInbox<T>(pick: (s: InboxSlice) => T): T {
  return useStore(inboxStoreOf(useRoom().client), pick);
}

export function participantsStoreOf(client: EngineClient): ReturnType<typeof createParticipantsStore> {
  const stores = storesOf(client);
  stores.participants ??= createParticipantsStore(client);
  return stores.participants;
}

export function useParticipants<T>(pick: (s: ParticipantsSlice) => T): T {
  return useStore(participantsStoreOf(useRoom().client), pick);
}

export function activityStoreOf(client: EngineClient): ReturnType<typeof createActivityStore> {
  const stores = storesOf(client);
  stores.activity ??= createActivityStore(client);
  return stores.activity;
}

export function useActivity<T>(pick: (s: ActivitySlice) => T): T {
  return useStore(activityStoreOf(useRoom().client), pick);
}
