import { contextBridge, ipcRenderer } from 'electron';
import { IPC_ENDPOINT_CHANNEL, type CommonroomBridge, type EndpointInfo } from '../src-main/common/ipc';

/** One typed, narrow API for the renderer; no Node, no raw ipcRenderer. */
const bridge: CommonroomBridge = {
  endpoint: () => ipcRenderer.invoke(IPC_ENDPOINT_CHANNEL) as Promise<EndpointInfo>,
};

contextBridge.exposeInMainWorld('commonroom', bridge);
