import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification } from 'electron';
import { IPC_DESKTOP_CHOOSE_ROOM, IPC_DESKTOP_NOTIFY, type DesktopMessage } from '../common/ipc';
import { IPC_UI_MESSAGE } from '../common/ui-protocol';
import { isRoomError } from '../common/errors';
import { portFromEnv, startRunner, type RunningRoom } from '../server/runner';
import { findRunningRoom } from '../engine/index';
import { LIMITS } from '../common/limits';
import { parseDesktopNote } from './desktop-note';
import { describeLiveWork, isIdle, NO_LIVE_WORK, QUIT_BUTTON, quitPrompt, readLiveWork, type LiveWork } from './live-work';
import { appMenuTemplate } from './menu';
import type { RemoteRoom } from './room-relay';
import { RoomTray } from './tray';
import { hardenApp } from './security';
import { isTrustedSender, makeTrustedUrlCheck, type IpcSenderEvent } from './trusted-url';
import { UiIpc } from './ui-ipc';
import { windowOptions } from './window-options';

/**
 * The Electron shell, kept thin: it shows the room a room process already serves (the login service of
 * `commonroom service install`, a `commonroom serve`) through that process's UI door, else starts the same room
 * process `serve` starts, in itself; and it shows the renderer. Closing the window while its own room has live
 * work leaves the room running behind a tray item; quitting then says what ends and asks. Everything else
 * lives in plain-Node modules. This is the only folder that imports electron.
 * Tested from its built file (out/main/app.js) with Electron's modules stubbed at their documented API
 * (test/desktop/, test/harness/electron/).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDevUrl = process.env.ELECTRON_RENDERER_URL;
const rendererFile = path.join(here, '../renderer/index.html');
const rendererFileUrl = pathToFileURL(rendererFile).toString();

/** Our renderer's page, by exact parse (scheme, host, path): the dev server's URL or the built file. */
const isTrustedUrl = makeTrustedUrlCheck(rendererDevUrl || rendererFileUrl);

/** The room this process runs itself (nothing else serves it). */
let running: RunningRoom | undefined;
/** The room process the app shows instead, when another process already serves the room (its service). */
let attached: RemoteRoom | undefined;
/** The room the app shows: COMMONROOM_ROOM, the default room, or the one the person picked. */
let roomArg: string | undefined = process.env.COMMONROOM_ROOM || undefined;
/** Why the room is not open (sent to the window instead of hello), while it is not. */
let unavailable: Extract<DesktopMessage, { t: 'desktop.unavailable' }> | undefined;
/** The room being opened, so quitting meanwhile waits for it and closes it. */
let opening: Promise<void> | undefined;
let win: BrowserWindow | null = null;
/** Shown notifications, kept referenced until closed: a collected Notification loses its click handler. */
const shownNotes = new Set<Notification>();

const uiIpc = new UiIpc(() => running ?? attached, isTrustedUrl, LIMITS.maxBodyBytes, () => unavailable, (why, greeted) => roomLost(why, greeted));
const tray = new RoomTray(process.platform, { open: () => showWindow(), quit: () => app.quit() });
let quitting = false;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The room process serving the room now, if another one does and the person's operator token reads. */
function servedElsewhere(room: string | undefined): RemoteRoom | null {
  try {
    return findRunningRoom(room);
  } catch {
    // no token file (another account's room): opening it here says who holds it
    return null;
  }
}

/** The room process serving the room, looked for `tries` times half a second apart. */
async function servedSoon(room: string | undefined, tries: number): Promise<RemoteRoom | null> {
  for (let i = 0; i < tries && !quitting; i++) {
    await wait(500);
    const served = servedElsewhere(room);
    if (served) return served;
  }
  return null;
}

function openRoom(room: string | undefined): Promise<void> {
  opening = (async () => {
    try {
      roomArg = room;
      const served = servedElsewhere(room);
      if (served) {
        // shown, not started: restarting or updating the app ends nothing the room process runs
        attached = served;
        unavailable = undefined;
        return;
      }
      try {
        running = await startRunner({ room, port: portFromEnv(), browserUi: false });
      } catch (error) {
        // held by a room process that is still starting (the service, at login): shown once it serves
        const later = isRoomError(error) && error.code === 'ROOM_LOCKED' ? await servedSoon(room, 6) : null;
        if (!later) throw error;
        attached = later;
      }
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

/** The window again (the tray's "Open", the dock icon, a second launch): made anew when it was closed. */
function showWindow(): void {
  trayFollows?.();
  tray.hide();
  if (win && !win.isDestroyed()) return focusWindow();
  if (app.isReady()) void createWindow();
}

let reattaching: Promise<void> | undefined;
/**
 * The room process the window was shown through ended (the service restarted, or was stopped): wait a little
 * for it to come back (a service manager restarts it within seconds), else open the room here; then the
 * windows start over on whichever it is.
 */
function roomLost(why: string, greeted: boolean): void {
  if (!attached || reattaching || quitting) return;
  console.error(`commonroom: ${why}`);
  attached = undefined;
  uiIpc.close();
  const reload = () => {
    for (const each of BrowserWindow.getAllWindows()) if (!each.isDestroyed()) each.webContents.reload();
  };
  if (!greeted) {
    // it never served this window (it refused the connection): said in the window, not tried again and again
    unavailable = { t: 'desktop.unavailable', room: roomArg ?? 'the default room', message: `the room process serving this room could not be reached: ${why}`, holderPid: null };
    return reload();
  }
  reattaching = (async () => {
    await servedSoon(roomArg, 20);
    if (quitting) return;
    await openRoom(roomArg);
    reload();
  })().finally(() => (reattaching = undefined));
}

async function liveWork(): Promise<LiveWork> {
  if (!running) return NO_LIVE_WORK; // a room another process serves goes on without the app
  try {
    return await readLiveWork(running.engine);
  } catch (error) {
    console.error(`commonroom: could not read what runs in the room: ${error instanceof Error ? error.message : String(error)}`);
    return NO_LIVE_WORK;
  }
}

function roomName(): string {
  return running ? path.basename(running.engine.room.location.markdownPath) : 'the room';
}

/**
 * The last window closed. With live work in the app's own room, the room keeps running behind a tray item; with
 * none (or a room another process serves), the app quits as always on Linux and Windows and stays on macOS.
 */
async function lastWindowClosed(): Promise<void> {
  await opening;
  const work = await liveWork();
  if (win || quitting) return; // reopened (or quitting) meanwhile
  if (!isIdle(work)) return showTray(work);
  if (process.platform !== 'darwin') app.quit();
}

let trayFollows: (() => void) | undefined;
/** The tray item, kept saying what runs: each change in the room reads it again (at most once a second). */
function showTray(work: LiveWork): void {
  tray.show(roomName(), describeLiveWork(work));
  if (trayFollows || !running) return;
  let pending: NodeJS.Timeout | undefined;
  const stop = running.engine.bus.subscribe(() => {
    pending ??= setTimeout(() => {
      pending = undefined;
      void liveWork().then((now) => tray.shown && tray.show(roomName(), describeLiveWork(now)));
    }, 1000);
  });
  trayFollows = () => {
    stop();
    clearTimeout(pending);
    trayFollows = undefined;
  };
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
  if (!isTrustedSender(event, isTrustedUrl) || !win || running || attached) return;
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
  app.on('second-instance', showWindow);
  hardenApp(isTrustedUrl);
  uiIpc.register(ipcMain);
  ipcMain.on(IPC_DESKTOP_NOTIFY, showNote);
  ipcMain.on(IPC_DESKTOP_CHOOSE_ROOM, (event) => void chooseRoom(event));
  app
    .whenReady()
    .then(async () => {
      Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform)));
      await openRoom(roomArg);
      await createWindow();
    })
    .catch((error: unknown) => {
      console.error(`commonroom: ${error instanceof Error ? error.message : String(error)}`);
      app.exit(1);
    });
  app.on('activate', () => {
    // macOS: the dock icon reopens the window the room kept running without
    if (!win) showWindow();
  });
  app.on('window-all-closed', () => void lastWindowClosed());
  let asking = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    if (asking) return;
    // what would end is said first, and ends only when the person says so; then the UI sessions end, then the
    // room: its shells' and stages' process trees, its lock, as `serve` does
    void (async () => {
      await opening;
      const work = await liveWork();
      if (!isIdle(work)) {
        asking = true;
        const options = quitPrompt(work, roomName());
        const answer = await (win && !win.isDestroyed() ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options)).finally(() => (asking = false));
        if (answer.response !== QUIT_BUTTON) return; // cancelled: everything keeps running
      }
      quitting = true;
      try {
        await reattaching;
        uiIpc.close();
        trayFollows?.();
        tray.hide();
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
