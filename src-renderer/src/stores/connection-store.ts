import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConnectionState, EngineClient, Hello } from '../engine-client';

export interface ConnectionSlice {
  state: ConnectionState;
  hello: Hello | null;
  /** The link has been up at least once (a drop after that is "reconnecting", before it "cannot reach"). */
  everOpen: boolean;
}

/** The link to the room, as the header and the empty states show it. */
export function createConnectionStore(client: EngineClient): StoreApi<ConnectionSlice> & { dispose(): void } {
  const store = createStore<ConnectionSlice>(() => ({ state: client.state, hello: client.identity, everOpen: client.state === 'open' }));
  const offs = [
    client.onState((state) => store.setState((s) => ({ state, everOpen: s.everOpen || state === 'open' }))),
    client.onHello((hello) => store.setState({ hello })),
  ];
  return Object.assign(store, { dispose: () => offs.forEach((off) => off()) });
}
