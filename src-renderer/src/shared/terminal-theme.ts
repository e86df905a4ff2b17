import type { ITheme } from '@xterm/xterm';

/**
 * The contrast every terminal keeps its text at, at least, against its background (xterm's
 * minimumContrastRatio; WCAG AA for normal text): an agent's grey and dim text stays readable in both schemes.
 */
export const TERMINAL_MIN_CONTRAST = 4.5;

/** Terminal colours that sit on the app's light and dark surfaces (app.css --term-bg). */
export const TERMINAL_THEMES: Record<'light' | 'dark', ITheme> = {
  light: {
    background: '#fbfbfa',
    foreground: '#1f2328',
    cursor: '#1f2328',
    cursorAccent: '#fbfbfa',
    selectionBackground: '#b6d4fe',
    black: '#24292f',
    red: '#c0362c',
    green: '#1a7f37',
    yellow: '#9a6700',
    blue: '#0969da',
    magenta: '#8250df',
    cyan: '#1b7c83',
    white: '#6e7781',
    brightBlack: '#57606a',
    brightRed: '#a40e26',
    brightGreen: '#116329',
    brightYellow: '#7d4e00',
    brightBlue: '#0550ae',
    brightMagenta: '#6639ba',
    brightCyan: '#136061',
    brightWhite: '#8c959f',
  },
  dark: {
    background: '#16181c',
    foreground: '#d7dae0',
    cursor: '#d7dae0',
    cursorAccent: '#16181c',
    selectionBackground: '#3a4d6b',
    black: '#3b4048',
    red: '#ef6b73',
    green: '#8cc570',
    yellow: '#e5c07b',
    blue: '#61afef',
    magenta: '#c678dd',
    cyan: '#56b6c2',
    white: '#c8ccd4',
    brightBlack: '#636d83',
    brightRed: '#ff8a92',
    brightGreen: '#a5e075',
    brightYellow: '#f0d197',
    brightBlue: '#7dc1ff',
    brightMagenta: '#de9bf0',
    brightCyan: '#70d0dc',
    brightWhite: '#ffffff',
  },
};

const DARK_QUERY = '(prefers-color-scheme: dark)';

export function systemScheme(): 'light' | 'dark' {
  return window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

/** Calls back when the system switches between light and dark; returns an unsubscribe. */
export function onSchemeChange(listener: (scheme: 'light' | 'dark') => void): () => void {
  const query = window.matchMedia(DARK_QUERY);
  const changed = () => listener(query.matches ? 'dark' : 'light');
  query.addEventListener('change', changed);
  return () => query.removeEventListener('change', changed);
}
