import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification } from 'electron';
import { IPC_DESKTOP_CHOOSE_ROOM, IPC_DESKTOP_NOTIFY, type DesktopMessage } from '../common/ipc';
import { IPC_UI_MESSAGE } from '../common/ui-protocol';
import { isRoomError } from '../common/errors';
import { portFromEnv, startRunner, type RunningRoom } from '../server/runner';
import { LIMITS } from '../common/limits';
import { parseDesktopNote } from './desktop-note';
import { appMenuTemplate } from './menu';
import { hardenApp } from './security';
import { isTrustedSender, makeTrustedUrlCheck, type IpcSenderEvent } from './trusted-url';
import { UiIpc } from './ui-ipc';
import { windowOptions } from './window-options';

/**
 * The Electron shell, kept thin: it starts the same room process `commonroom serve` starts, and shows the
 * renderer. Everything else lives in plain-Node modules. This is the only folder that imports electron.
 * Tested from its built file (out/main/app.js) with Electron's modules stubbed at their documented API
 * (test/desktop/, test/harness/electron/).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDevUrl = process.env.ELECTRON_RENDERER_URL;
const rendererFile = path.join(here, '../renderer/index.html');
const rendererFileUrl = pathToFileURL(rendererFile).toString();

/** Our renderer's page, by exact parse (scheme, host, path): the dev server's URL or the built file. */
const isTrustedUrl = makeTrustedUrlCheck(rendererDevUrl || rendererFileUrl);

let running: RunningRoom | undefined;
/** Why the room is not open (sent to the window instead of hello), while it is not. */
let unavailable: Extract<DesktopMessage, { t: 'desktop.unavailable' }> | undefined;
/** The room being opened, so quitting meanwhile waits for it and closes it. */
let opening: Promise<void> | undefined;
let win: BrowserWindow | null = null;
/** Shown notifications, kept referenced until closed: a collected Notification loses its click handler. */
const shownNotes = new Set<Notification>();

const uiIpc = new UiIpc(() => running, isTrustedUrl, LIMITS.maxBodyBytes, () => unavailable);

function openRoom(room: string | undefined): Promise<void> {
  opening = (async () => {
    try {
      running = await startRunner({ room, port: portFromEnv(), browserUi: false });
      unavailable = undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const pid = isRoomError(error) ? error.details?.pid : undefined;
      unavailable = { t: 'desktop.unavailable', room: room ?? 'the default room', message, holderPid: typeof pid === 'number' ? pid : null };
      console.error(`commonroom: the room could not open: ${message}`);
    }
  })();
  return opening;
}

function focusWindow(): void {
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

async function createWindow(): Promise<void> {
  win = new BrowserWindow(windowOptions(path.join(here, '../preload/preload.cjs')));
  win.on('closed', () => (win = null));
  if (rendererDevUrl) await win.loadURL(rendererDevUrl);
  else await win.loadFile(rendererFile);
}

function showNote(event: IpcSenderEvent, raw: unknown): void {
  if (!isTrustedSender(event, isTrustedUrl)) return;
  const note = parseDesktopNote(raw);
  if (!note || !Notification.isSupported()) return;
  const shown = new Notification({ title: note.title, body: note.body });
  const forget = () => shownNotes.delete(shown);
  shown.on('click', () => {
    forget();
    focusWindow();
    const focus: DesktopMessage = note.shellId ? { t: 'desktop.focus', screen: 'terminals', subject: note.shellId } : { t: 'desktop.focus', screen: 'inbox', subject: note.handoffId ?? '' };
    if (win && !win.isDestroyed()) win.webContents.send(IPC_UI_MESSAGE, focus);
  });
  shown.on('close', forget);
  shownNotes.add(shown);
  if (shownNotes.size > 50) shownNotes.delete(shownNotes.values().next().value as Notification);
  shown.show();
}

async function chooseRoom(event: IpcSenderEvent): Promise<void> {
  if (!isTrustedSender(event, isTrustedUrl) || !win || running) return;
  const picked = await dialog.showOpenDialog(win, {
    title: 'Open a room',
    buttonLabel: 'Open room',
    properties: ['openFile', 'createDirectory'],
    filters: [{ name: 'Commonroom rooms', extensions: ['md'] }],
  });
  const file = picked.filePaths[0];
  if (picked.canceled || !file) return;
  await openRoom(file);
  // the window starts over: a fresh session says hello, or why the room is still not open
  if (win && !win.isDestroyed()) win.webContents.reload();
}

if (!app.requestSingleInstanceLock()) {
  // the first instance hears 'second-instance' and comes forward; this one leaves at once
  app.quit();
} else {
  app.on('second-instance', focusWindow);
  hardenApp(isTrustedUrl);
  uiIpc.register(ipcMain);
  ipcMain.on(IPC_DESKTOP_NOTIFY, showNote);
  ipcMain.on(IPC_DESKTOP_CHOOSE_ROOM, (event) => void chooseRoom(event));
  app
    .whenReady()
    .then(async () => {
      Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform)));
      await openRoom(process.env.COMMONROOM_ROOM || undefined);
      await createWindow();
    })
    .catch((error: unknown) => {
      console.error(`commonroom: ${error instanceof Error ? error.message : String(error)}`);
      app.exit(1);
    });
  app.on('activate', () => {
    // macOS: the dock icon reopens the window the room kept running without
    if (!win) void createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    // ends the UI sessions, then the room: its shells' and stages' process trees, its lock, as `serve` does
    void (async () => {
      try {
        await opening;
        uiIpc.close();
        await running?.close();
      } catch (error) {
        console.error(`commonroom: closing the room failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        running = undefined;
        app.exit(0);
      }
    })();
  });
}
