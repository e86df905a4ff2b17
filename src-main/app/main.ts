import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_ENDPOINT_CHANNEL, type EndpointInfo } from '../common/ipc';
import { portFromEnv, startRunner, type RunningRoom } from '../server/runner';
import { hardenApp } from './security';

/**
 * The Electron shell, kept thin: it starts the same room process `commonroom serve` starts, and shows the
 * renderer. Everything else lives in plain-Node modules. This is the only folder that imports electron.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDevUrl = process.env.ELECTRON_RENDERER_URL;
const rendererFile = path.join(here, '../renderer/index.html');
const rendererFileUrl = pathToFileURL(rendererFile).toString();

function isTrustedUrl(url: string): boolean {
  return rendererDevUrl ? url.startsWith(rendererDevUrl) : url === rendererFileUrl || url.startsWith(`${rendererFileUrl}#`);
}

let running: RunningRoom | undefined;

function endpointInfo(event: IpcMainInvokeEvent): EndpointInfo {
  // IPC senders are validated: only our own renderer may ask
  if (!event.senderFrame || !isTrustedUrl(event.senderFrame.url)) throw new Error('untrusted sender');
  if (!running) throw new Error('the room is not open yet');
  return {
    mcpUrl: running.mcpUrl.toString(),
    tokenFile: running.tokenFile,
    room: running.engine.room.location.markdownPath,
  };
}

async function createWindow(): Promise<void> {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Commonroom',
    webPreferences: {
      preload: path.join(here, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
    },
  });
  if (rendererDevUrl) await win.loadURL(rendererDevUrl);
  else await win.loadFile(rendererFile);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  hardenApp(isTrustedUrl);
  ipcMain.handle(IPC_ENDPOINT_CHANNEL, endpointInfo);
  app
    .whenReady()
    .then(async () => {
      running = await startRunner({ room: process.env.COMMONROOM_ROOM || undefined, port: portFromEnv(), browserUi: false });
      await createWindow();
    })
    .catch((error: unknown) => {
      console.error(`commonroom: ${error instanceof Error ? error.message : String(error)}`);
      app.exit(1);
    });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (!running) return;
    event.preventDefault();
    const closing = running;
    running = undefined;
    void closing.close().finally(() => app.exit(0));
  });
}
