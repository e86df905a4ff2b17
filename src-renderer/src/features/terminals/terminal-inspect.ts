/**
 * Read-only access to what each open terminal shows, for end-to-end tests and for debugging from the devtools
 * console: the WebGL renderer draws on a canvas, so the text is not in the DOM. It can read, never write.
 */
import type { Terminal } from '@xterm/xterm';

const open = new Map<string, Terminal>();

export function registerTerminal(shellId: string, term: Terminal): () => void {
  open.set(shellId, term);
  return () => {
    if (open.get(shellId) === term) open.delete(shellId);
  };
}

function terminalText(shellId: string, lastLines = 200): string | null {
  const term = open.get(shellId);
  if (!term) return null;
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = Math.max(0, buffer.length - lastLines); y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  return lines.join('\n');
}

function terminalSize(shellId: string): { cols: number; rows: number } | null {
  const term = open.get(shellId);
  return term ? { cols: term.cols, rows: term.rows } : null;
}

/** The contrast the terminal keeps its text at, at least (xterm's minimumContrastRatio). */
function terminalMinimumContrast(shellId: string): number | null {
  return open.get(shellId)?.options.minimumContrastRatio ?? null;
}

(globalThis as { commonroomInspect?: unknown }).commonroomInspect = { terminalText, terminalSize, terminalMinimumContrast };
