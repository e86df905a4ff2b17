/**
 * The room's shells as the person may see them. The engine is the truth: the list is re-read with shell_list
 * when the link opens (first time and after every reconnect), when the room hints that its shells changed
 * (shells are volatile, so they have their own signal rather than rows in the change feed), when an event
 * hints at a change (a tty graph stage), and after the person opens or closes one. Nothing polls. A shell's
 * exit, heard on its attachment, is applied at once.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { MethodInput } from '../../../src-main/common/contract';
import type { EventView } from '../../../src-main/common/handoff-dto';
import type { ShellView } from '../../../src-main/common/methods/shells';
import type { EngineClient, ShellExitInfo } from '../engine-client';
import { coalesced, describeError as describe } from './coalesced-read';

export interface ShellsSlice {
  shells: ShellView[];
  loaded: boolean;
  /** The last failed re-read or action, in words a person can act on. */
  error: string | null;
  selectedId: string | null;
  /**
   * The person chose the selected shell (clicked it, opened it, followed a notification to it); false when this
   * page only shows the first shell because none was chosen. Only a chosen view claims the size of the person's
   * own shell: a second tab or a phone left on Terminals would otherwise claim each new shell as it appears,
   * racing the view the person is looking at.
   */
  chosen: boolean;
  select(id: string): void;
  refresh(): Promise<void>;
  openShell(input?: MethodInput<'shell_open'>): Promise<void>;
  closeShell(id: string): Promise<void>;
  shellExited(id: string, exit: ShellExitInfo): void;
  applyEvent(event: EventView): void;
  dismissError(): void;
}

/** Events whose kind may mean a shell appeared or ended (a tty graph stage runs in a shell). */
export function eventTouchesShells(event: EventView): boolean {
  return event.kind.startsWith('shell.') || event.kind.startsWith('graph.');
}

export function createShellsStore(client: EngineClient): StoreApi<ShellsSlice> & { dispose(): void } {

  const store = createStore<ShellsSlice>((set, get) => {
    async function readOnce(): Promise<void> {
      try {
        const { shells } = await client.call('shell_list', {});
        const selected = get().selectedId;
        const keep = selected !== null && shells.some((s) => s.id === selected);
        const same = get().loaded && JSON.stringify(shells) === JSON.stringify(get().shells);
        // a re-read that found nothing new keeps the same array, so nothing re-renders
        set({ ...(same ? {} : { shells }), loaded: true, error: null, selectedId: keep ? selected : (shells[0]?.id ?? null), ...(keep ? {} : { chosen: false }) });
      } catch (error) {
        set({ error: describe(error, 'could not read the shells') });
      }
    }

    return {
      shells: [],
      loaded: false,
      error: null,
      selectedId: null,
      chosen: false,
      select: (id) => set({ selectedId: id, chosen: true }),
      // one re-read at a time; asks made meanwhile fold into a single re-read after it
      refresh: coalesced(readOnce),
      async openShell(input = {}) {
        try {
          const { shell } = await client.call('shell_open', input);
          set((s) => ({ shells: [...s.shells.filter((x) => x.id !== shell.id), shell], selectedId: shell.id, chosen: true, error: null }));
        } catch (error) {
          set({ error: describe(error, 'could not open a shell') });
        }
        await get().refresh();
      },
      async closeShell(id) {
        try {
          await client.call('shell_close', { shellId: id });
        } catch (error) {
          set({ error: describe(error, 'could not close the shell') });
        }
        await get().refresh();
      },
      shellExited(id, exit) {
        set((s) => ({ shells: s.shells.map((x) => (x.id === id ? { ...x, alive: false, exitCode: exit.exitCode, signal: exit.signal } : x)) }));
      },
      applyEvent(event) {
        if (eventTouchesShells(event)) void get().refresh();
      },
      dismissError: () => set({ error: null }),
    };
  });

  const linked = (state: string) => {
    if (state === 'open') void store.getState().refresh();
  };
  const offs = [
    client.onState(linked),
    client.on((event) => store.getState().applyEvent(event)),
    client.onShellsChanged(() => void store.getState().refresh()),
  ];
  if (client.state === 'open') linked('open');

  return Object.assign(store, {
    dispose() {
      offs.forEach((off) => off());
    },
  });
}
