/**
 * The room's participants (participant_list, operator only), re-read when the link opens and on every
 * participant.* hint of the change feed; their presence (participant_activity: connected now, last call)
 * re-read on the room's presence hints, which the engine throttles. Adding returns the token, which is kept
 * only by the screen that shows it once.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Capability } from '../../../src-main/common/capabilities';
import type { ParticipantView } from '../../../src-main/common/dto';
import type { ParticipantPresence } from '../../../src-main/common/methods/participants';
import type { EngineClient } from '../engine-client';
import { coalesced, describeError } from './coalesced-read';

export interface ParticipantsSlice {
  participants: ParticipantView[];
  /** Presence by participant name (absent: not read yet). */
  presence: Record<string, ParticipantPresence>;
  loaded: boolean;
  error: string | null;
  refresh(): Promise<void>;
  refreshPresence(): Promise<void>;
  /** Adds an agent; resolves to its token (shown once), or null when refused (the error says why). */
  add(name: string, capabilities: Capability[]): Promise<string | null>;
  revoke(name: string): Promise<void>;
  /** A new token for `name` (the old one stops working at once); resolves with it, or null when refused. */
  rotate(name: string): Promise<string | null>;
  /** Closes one open MCP session of `name` (its client starts a new one). */
  closeSession(name: string, sessionId: string): Promise<void>;
  /** Lets `name` write one more folder (add) or takes one back (remove); resolves with the room's refusal, or null. */
  changeFolders(name: string, change: { add: string } | { remove: string }): Promise<string | null>;
  dismissError(): void;
}

export function createParticipantsStore(client: EngineClient): StoreApi<ParticipantsSlice> & { dispose(): void } {
  const store = createStore<ParticipantsSlice>((set, get) => {
    const read = coalesced(async () => {
      try {
        const { participants } = await client.call('participant_list', {});
        set({ participants, loaded: true, error: null });
      } catch (error) {
        set({ error: describeError(error, 'could not read the participants') });
      }
    });
    const readPresence = coalesced(async () => {
      try {
        const { participants } = await client.call('participant_activity', {});
        set({ presence: Object.fromEntries(participants.map((p) => [p.name, p])) });
      } catch (error) {
        set({ error: describeError(error, 'could not read who is connected') });
      }
    });
    return {
      participants: [],
      presence: {},
      loaded: false,
      error: null,
      refresh: read,
      refreshPresence: readPresence,
      async add(name, capabilities) {
        try {
          const created = await client.call('participant_add', { name, capabilities });
          set({ error: null });
          void get().refresh();
          return created.token;
        } catch (error) {
          set({ error: describeError(error, `could not add ${name}`) });
          return null;
        }
      },
      async revoke(name) {
        try {
          await client.call('participant_revoke', { name });
          set({ error: null });
        } catch (error) {
          set({ error: describeError(error, `could not revoke ${name}`) });
        }
        await get().refresh();
      },
      async rotate(name) {
        try {
          const rotated = await client.call('participant_rotate', { name });
          set({ error: null });
          void get().refresh();
          return rotated.token;
        } catch (error) {
          set({ error: describeError(error, `could not give ${name} a new token`) });
          return null;
        }
      },
      async closeSession(name, sessionId) {
        try {
          await client.call('participant_session_close', { name, sessionId });
          set({ error: null });
        } catch (error) {
          set({ error: describeError(error, `could not close ${name}'s session`) });
        }
        await get().refreshPresence();
      },
      async changeFolders(name, change) {
        try {
          await client.call('participant_folders', { name, ...change });
          return null;
        } catch (error) {
          return describeError(error, 'add' in change ? `could not let ${name} write ${change.add}` : `could not take ${change.remove} back from ${name}`);
        } finally {
          await get().refresh();
        }
      },
      dismissError: () => set({ error: null }),
    };
  });
  const readAll = () => {
    void store.getState().refresh();
    void store.getState().refreshPresence();
  };
  const offs = [
    client.onState((state) => {
      if (state === 'open') readAll();
    }),
    client.on((event) => {
      if (event.kind.startsWith('participant.')) readAll();
    }),
    client.onPresenceChanged(() => void store.getState().refreshPresence()),
  ];
  if (client.state === 'open') readAll();
  return Object.assign(store, { dispose: () => offs.forEach((off) => off()) });
}
