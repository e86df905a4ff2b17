import type { BrowserWindowConstructorOptions } from 'electron';

/** The window's web preferences: the Electron security checklist's defaults, spelled out (RELIABILITY.md §2). */
export function windowOptions(preload: string): BrowserWindowConstructorOptions {
  return {
    width: 1100,
    height: 760,
    title: 'Commonroom',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}
