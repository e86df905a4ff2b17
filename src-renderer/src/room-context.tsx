import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { EngineClient } from './engine-client';
import type { DesktopLink } from './transports/ipc-transport';
import type { createConnectionStore, ConnectionSlice } from './stores/connection-store';
import type { createShellsStore, ShellsSlice } from './stores/shells-store';

/** The one engine client and the stores it feeds, created once per window (main.tsx). */
export interface Room {
  client: EngineClient;
  connection: ReturnType<typeof createConnectionStore>;
  shells: ReturnType<typeof createShellsStore>;
  /** The desktop app's extras (notifications, "open another room"), inside the desktop app; else null. */
  desktop: DesktopLink | null;
  /** Why the link to the room is closed for good (signed out, no bridge), said instead of "reconnecting". */
  problem(): string | null;
}

export const RoomContext = createContext<Room | null>(null);

export function useRoom(): Room {
  const room = useContext(RoomContext);
  if (!room) throw new Error('useRoom outside RoomContext');
  return room;
}

export function useConnection<T>(pick: (s: ConnectionSlice) => T): T {
  return useStore(useRoom().connection, pick);
}

export function useShells<T>(pick: (s: ShellsSlice) => T): T {
  return useStore(useRoom().shells, pick);
}
