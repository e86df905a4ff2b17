/** The typed IPC surface between the Electron main process and the preload. */
export const IPC_ENDPOINT_CHANNEL = 'commonroom:endpoint';

export interface EndpointInfo {
  mcpUrl: string;
  tokenFile: string;
  room: string;
}

/** What the preload exposes on `window.commonroom`. */
export interface CommonroomBridge {
  endpoint(): Promise<EndpointInfo>;
}
