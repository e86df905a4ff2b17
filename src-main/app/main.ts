import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_ENDPOINT_CHANNEL, type EndpointInfo } from '../common/ipc';
import { portFromEnv, startRunner, type RunningRoom } from '../server/runner';
import { LIMITS } from '../common/limits';
import { hardenApp } from './security';
import { isTrustedSender, makeTrustedUrlCheck } from './trusted-url';
import { UiIpc } from './ui-ipc';
import { windowOptions } from './window-options';

/**
 * The Electron shell, kept thin: it starts the same room process `commonroom serve` starts, and shows the
 * renderer. Everything else lives in plain-Node modules. This is the only folder that imports electron.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDevUrl = process.env.ELECTRON_RENDERER_URL;
const rendererFile = path.join(here, '../renderer/index.html');
const rendererFileUrl = pathToFileURL(rendererFile).toString();

/** Our renderer's page, by exact parse (scheme, host, path): the dev server's URL or the built file. */
const isTrustedUrl = makeTrustedUrlCheck(rendererDevUrl || rendererFileUrl);

let running: RunningRoom | undefined;
const uiIpc = new UiIpc(() => running, isTrustedUrl, LIMITS.maxBodyBytes);

function endpointInfo(event: IpcMainInvokeEvent): EndpointInfo {
  // IPC senders are validated: only our own renderer may ask
  if (!isTrustedSender(event, isTrustedUrl)) throw new Error('untrusted sender');
  if (!running) throw new Error('the room is not open yet');
  return {
    mcpUrl: running.mcpUrl.toString(),
    tokenFile: running.tokenFile,
    room: running.engine.room.location.markdownPath,
  };
}

async function createWindow(): Promise<void> {
  const win = new BrowserWindow(windowOptions(path.join(here, '../preload/preload.cjs')));
  if (rendererDevUrl) await win.loadURL(rendererDevUrl);
  else await win.loadFile(rendererFile);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  hardenApp(isTrustedUrl);
  ipcMain.handle(IPC_ENDPOINT_CHANNEL, endpointInfo);
  uiIpc.register(ipcMain);
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
    uiIpc.close();
    void closing.close().finally(() => app.exit(0));
  });
}
