/**
 * One xterm.js terminal showing one shell: attached to its bytes (rendered, then acknowledged, so a flood is
 * paced by what the page actually draws), typing, pasting and resizing through that same attachment (checked
 * and audited by the room once per attachment, not a call per keystroke). Its size belongs to whoever drives
 * the shell: a view that drives it (the person's own shell, first looked at; or taken over with "Fit to panel")
 * fits the panel and the PTY follows (fit addon → the attachment's resize); every other view — an agent's
 * shell, a second tab, a phone watching — shows the PTY at its size and the panel scrolls, so watching never
 * resizes anyone's programs. The room says which (`driving`), and tells a view that stopped driving.
 */
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { isFocusReport, silenceTerminalQueries } from './terminal-queries';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';
import type { EngineClient, ShellAttachment, ShellExitInfo } from '../../engine-client';
import { sendTyped } from './shell-input';
import { TerminalFeed } from './terminal-feed';
import { registerTerminal } from './terminal-inspect';
import { TERMINAL_MIN_CONTRAST, TERMINAL_THEMES, onSchemeChange, systemScheme } from '../../shared/terminal-theme';
import { UndimFilter } from './terminal-undim';

export interface TerminalSessionEvents {
  exited(exit: ShellExitInfo): void;
  truncated(): void;
  failed(message: string): void;
  /** Whether this view sizes the shell now (the room's answer, or another view took it over). */
  driving?(driving: boolean): void;
}

const TRUNCATED_MARK = '\x1b[2m── earlier output is gone: the scrollback keeps only the newest bytes ──\x1b[0m\r\n';
const RESIZE_SETTLE_MS = 80;

export class TerminalSession {
  readonly term: Terminal;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon();
  private readonly attachment: ShellAttachment;
  private readonly feed: TerminalFeed;
  private readonly cleanups: Array<() => void> = [];
  private resizeTimer: ReturnType<typeof setTimeout> | null = null;
  private sentSize = '';
  /** The next resize hands driving to this view (Fit to panel). */
  private take = false;
  private disposed = false;

  constructor(
    container: HTMLElement,
    private readonly shellId: string,
    private readonly client: EngineClient,
    private readonly events: TerminalSessionEvents,
    private alive: boolean,
    /** The person sizes this shell (theirs, or taken over); false: it keeps `shellSize`. */
    private fitsPanel = true,
    private shellSize: { cols: number; rows: number } = { cols: 120, rows: 32 },
  ) {
    this.term = new Terminal({
      allowProposedApi: true, // unicode11 widths
      scrollback: 10_000,
      fontFamily: "'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace",
      fontSize: 13,
      cursorBlink: true,
      // text an agent prints stays readable (WCAG AA, as VS Code's terminal enforces by default); dim text too,
      // drawn in its own colour (terminal-undim.ts)
      minimumContrastRatio: TERMINAL_MIN_CONTRAST,
      theme: TERMINAL_THEMES[systemScheme()],
      // OSC 8 hyperlinks an agent prints open like plain URLs: http(s) only, in a new tab with no opener
      linkHandler: { activate: (_event, uri) => openLink(uri), allowNonHttpProtocols: false },
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.term.loadAddon(new WebLinksAddon((_event, uri) => openLink(uri)));
    const unicode = new Unicode11Addon();
    this.term.loadAddon(unicode);
    this.term.unicode.activeVersion = '11';
    this.term.open(container);
    this.useWebgl();
    const queries = silenceTerminalQueries(this.term);
    this.cleanups.push(
      () => queries.dispose(),
      registerTerminal(shellId, this.term),
      onSchemeChange((scheme) => (this.term.options.theme = TERMINAL_THEMES[scheme])),
    );

    const onData = this.term.onData((text) => {
      if (!this.alive || isFocusReport(text)) return;
      sendTyped(text, (piece) => this.attachment.write(piece), () => events.failed('what you typed did not reach the shell: not connected to the room (it is reconnecting)'));
    });
    const onResize = this.term.onResize(() => this.scheduleResize());
    this.cleanups.push(() => onData.dispose(), () => onResize.dispose());

    const observer = new ResizeObserver(() => this.refit());
    observer.observe(container);
    this.cleanups.push(() => observer.disconnect());
    this.refit();

    const undim = new UndimFilter();
    this.feed = new TerminalFeed({ write: (data, done) => this.term.write(typeof data === 'string' ? data : undim.filter(data), done) });
    this.attachment = client.attachShell(shellId, {
      data: (bytes, truncated, ack) => {
        if (this.disposed) return;
        if (truncated) {
          this.feed.note(TRUNCATED_MARK);
          events.truncated();
        }
        this.feed.push(bytes, ack);
      },
      exit: (exit) => {
        this.alive = false;
        this.feed.note(`\r\n\x1b[2m── ${describeExit(exit)} ──\x1b[0m\r\n`);
        events.exited(exit);
      },
      error: (error) => events.failed(error.message),
      driving: (driving) => this.drivingChanged(driving),
    });
    // the link came back: its PTY may not know this view's size
    this.cleanups.push(
      client.onState((state) => {
        if (state !== 'open') return;
        this.sentSize = '';
        this.scheduleResize();
      }),
    );
  }

  setAlive(alive: boolean): void {
    this.alive = alive;
  }

  findNext(text: string): boolean {
    return text !== '' && this.search.findNext(text);
  }

  findPrevious(text: string): boolean {
    return text !== '' && this.search.findPrevious(text);
  }

  clearSearch(): void {
    this.search.clearDecorations();
  }

  /** Copies the selection (or, with none, the whole visible screen) to the clipboard. */
  async copy(): Promise<void> {
    let text = this.term.getSelection();
    if (!text) {
      this.term.selectAll();
      text = this.term.getSelection();
      this.term.clearSelection();
    }
    await navigator.clipboard.writeText(text);
  }

  focus(): void {
    this.term.focus();
  }

  dispose(): void {
    this.disposed = true;
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.attachment.detach();
    this.feed.stop();
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.term.dispose();
  }

  private useWebgl(): void {
    if (!hardwareWebgl()) return; // the DOM renderer draws instead
    try {
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => webgl.dispose()); // falls back to the DOM renderer
      this.term.loadAddon(webgl);
    } catch {
      // no WebGL here (no GPU, or it is disabled): the DOM renderer draws instead
    }
  }

  /** The size the shell's owner gave it (shell_list), followed by a view that does not fit the panel. */
  setShellSize(cols: number, rows: number): void {
    this.shellSize = { cols, rows };
    if (!this.fitsPanel) this.refit();
  }

  /** The person takes the shell's size over ("Fit to panel"): the room hands driving to this view. */
  takeOverSize(): void {
    this.fitsPanel = true;
    this.sentSize = '';
    this.take = true;
    this.refit();
  }

  /**
   * The person chose this shell in a page that was only showing it: its panel claims the size, which the room
   * grants when no other view drives the shell (else it answers that this view does not drive).
   */
  claimSize(): void {
    if (this.fitsPanel || this.disposed) return;
    this.fitsPanel = true;
    this.sentSize = '';
    this.refit();
  }

  /** The room's word on who sizes the shell: a view that does not drive shows the PTY at its size. */
  private drivingChanged(driving: boolean): void {
    if (this.disposed || driving === this.fitsPanel) return;
    this.fitsPanel = driving;
    if (!driving) this.sentSize = '';
    this.refit();
    this.events.driving?.(driving);
  }

  private refit(): void {
    if (!this.fitsPanel) {
      const { cols, rows } = this.shellSize;
      if (this.term.cols !== cols || this.term.rows !== rows) this.term.resize(cols, rows);
      return;
    }
    try {
      this.fit.fit();
    } catch {
      return; // hidden or not laid out yet: the next observed resize fits it
    }
    this.scheduleResize();
  }

  private scheduleResize(): void {
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = null;
      const size = `${this.term.cols}x${this.term.rows}`;
      if (!this.fitsPanel || !this.alive || this.disposed || size === this.sentSize || this.client.state !== 'open') return;
      // a refused resize comes back as the attachment's error; a down link is tried again once it is back
      if (this.attachment.resize(this.term.cols, this.term.rows, this.take)) {
        this.sentSize = size;
        this.take = false;
      }
    }, RESIZE_SETTLE_MS);
  }
}

export function describeExit(exit: ShellExitInfo): string {
  if (exit.signal) return `ended by ${exit.signal}`;
  if (exit.exitCode !== null) return `exited with code ${exit.exitCode}`;
  return 'ended';
}

function openLink(uri: string): void {
  if (/^https?:\/\//i.test(uri)) window.open(uri, '_blank', 'noopener,noreferrer');
}

let webglChecked: boolean | undefined;

/** Renderers that emulate the GPU on the CPU (Chromium's SwiftShader, Mesa's llvmpipe/softpipe, Windows' WARP). */
const SOFTWARE_GL = /swiftshader|llvmpipe|softpipe|software|basic render|warp/i;

/**
 * Whether WebGL here runs on a GPU. Without one (a VM, a remote desktop, Chromium with --disable-gpu) it is
 * emulated on the CPU and stalls on every read-back ("GPU stall due to ReadPixels" in the console while a
 * flood is drawn; the ui benchmark measured a 10 MB flood at 0.3 MB/s, 87 % of the page's time waiting in
 * LayerTreeHost::DoUpdateLayers on SwiftShader): there the DOM renderer is the better choice.
 * `failIfMajorPerformanceCaveat` refuses some such contexts, but not SwiftShader behind ANGLE, so the renderer's
 * name is checked too. The answer costs one throwaway canvas per page.
 */
function hardwareWebgl(): boolean {
  if (webglChecked === undefined) {
    try {
      const canvas = document.createElement('canvas');
      const gl = canvas.getContext('webgl2', { failIfMajorPerformanceCaveat: true });
      const info = gl?.getExtension('WEBGL_debug_renderer_info');
      const renderer = gl && info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
      webglChecked = gl !== null && !SOFTWARE_GL.test(renderer);
      gl?.getExtension('WEBGL_lose_context')?.loseContext();
    } catch {
      webglChecked = false;
    }
  }
  return webglChecked;
}
