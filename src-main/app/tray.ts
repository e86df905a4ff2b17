import { Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';

/** A 32×32 ring with a dot (the room, work in it): teal on Linux and Windows panels, a template image on macOS. */
const ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAAjElEQVR42u2Xyw2AQAhE6chS7cBWxwrMwoAwbjzMDcgj4WvHddqk7IsAWOg1AARVBoCkUgAoEgXABAz7RANl68UFkK7sSCyPU7bXQwBoAEAEgM7Ma8tkz7Tcox2TEYpalALIDJ4fYA+A1iJsb8PxQSQxiseXkcQ6Hj9IJE4yiaNU4iyXeExkXrM9v+MbHSXq33wjxtwAAAAASUVORK5CYII=';

export interface TrayActions {
  /** Brings the window back. */
  open(): void;
  /** Quits the app (which asks first when work would end). */
  quit(): void;
}

/**
 * The tray (menu-bar) item's menu: what runs, and the two things to do about it. Every action is a menu item:
 * activating the icon also opens the window, but on Linux what activates a StatusNotifierItem (a click, a double
 * click) is the desktop's choice (Electron's Tray documentation), and older app indicators ignore it, so the
 * icon's own click is a shortcut, never the only way.
 */
export function trayMenuTemplate(roomName: string, running: string, actions: TrayActions): MenuItemConstructorOptions[] {
  return [
    { label: `${roomName}: ${running} running`, enabled: false },
    { type: 'separator' },
    { label: 'Open Commonroom', click: () => actions.open() },
    { label: 'Quit Commonroom…', click: () => actions.quit() },
  ];
}

/**
 * The tray item shown while the window is closed and the room keeps working: it says what runs, reopens the
 * window and quits. Made when the last window closes with live work, gone when a window is back.
 */
export class RoomTray {
  private tray: Tray | null = null;

  constructor(
    private readonly platform: NodeJS.Platform,
    private readonly actions: TrayActions,
  ) {}

  get shown(): boolean {
    return this.tray !== null && !this.tray.isDestroyed();
  }

  /** Shows the item (or updates what it says). */
  show(roomName: string, running: string): void {
    if (!this.shown) {
      const image = nativeImage.createFromDataURL(ICON);
      if (this.platform === 'darwin') image.setTemplateImage(true);
      this.tray = new Tray(image);
      this.tray.on('click', () => this.actions.open());
    }
    const tray = this.tray as Tray;
    tray.setToolTip(`Commonroom keeps ${roomName} running: ${running}`);
    // a new menu each time: on Linux a changed item shows only once setContextMenu is called again
    tray.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(roomName, running, this.actions)));
  }

  hide(): void {
    if (this.shown) this.tray?.destroy();
    this.tray = null;
  }
}
