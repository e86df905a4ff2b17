import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { createGraphsStore, GraphsSlice } from '../../stores/graphs-store';

export type GraphsStore = ReturnType<typeof createGraphsStore>;

/** The graphs store of the open Graphs screen (created when the screen opens, disposed when it closes). */
export const GraphsContext = createContext<GraphsStore | null>(null);

export function useGraphsStore(): GraphsStore {
  const store = useContext(GraphsContext);
  if (!store) throw new Error('useGraphsStore outside GraphsContext');
  return store;
}

export function useGraphs<T>(selector: (s: GraphsSlice) => T): T {
  return useStore(useGraphsStore(), selector);
}
