import { create } from 'zustand';
import type { CommonroomBridge, EndpointInfo } from '../../../src-main/common/ipc';

declare global {
  interface Window {
    commonroom?: CommonroomBridge;
  }
}

interface EndpointState {
  info: EndpointInfo | null;
  error: string | null;
  load(): Promise<void>;
}

export const useEndpointStore = create<EndpointState>((set) => ({
  info: null,
  error: null,
  async load() {
    if (!window.commonroom) {
      set({ error: 'Not running inside the Commonroom app.' });
      return;
    }
    try {
      set({ info: await window.commonroom.endpoint(), error: null });
    } catch (error) {
      set({ error: error instanceof Error ? error.message : String(error) });
    }
  },
}));
