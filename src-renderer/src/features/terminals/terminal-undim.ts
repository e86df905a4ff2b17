/**
 * Takes faint (SGR 2, "dim") out of a shell's bytes before xterm draws them, so dim text is drawn in its own
 * colour, which the terminal keeps at 4.5:1 against its background (minimumContrastRatio). xterm on purpose
 * asks only half the contrast of dim cells and then halves their opacity (2–3:1: dev servers' timestamps and
 * agent CLIs' status lines were unreadable in both schemes); the 90-series greys stay grey, at 4.5:1.
 *
 * Only a standalone 2 in an SGR sequence (ESC [ … m) goes: the 2 of `38;2;r;g;b` (a true colour) and of
 * `38:2:…` stay, as do private sequences (ESC [ > 4 ; 2 m) and everything else. A sequence left with no
 * parameter is dropped whole (an empty ESC [ m would reset every attribute). A sequence split across frames is
 * held until its end arrives (a few bytes at most).
 */
const ESC = 0x1b;
const CSI_OPEN = 0x5b; // [
const FINAL_M = 0x6d; // m
/** An unfinished sequence longer than this is not an SGR worth holding: passed through as it is. */
const MAX_HELD = 64;

export class UndimFilter {
  private held: Uint8Array | null = null;

  filter(chunk: Uint8Array): Uint8Array {
    let data = chunk;
    if (this.held) {
      data = new Uint8Array(this.held.length + chunk.length);
      data.set(this.held);
      data.set(chunk, this.held.length);
      this.held = null;
    }
    if (data.indexOf(ESC) === -1) return data;
    const out = new Uint8Array(data.length); // never longer: a sequence only loses parameters
    let o = 0;
    let i = 0;
    while (i < data.length) {
      const b = data[i] as number;
      if (b !== ESC) {
        out[o++] = b;
        i++;
        continue;
      }
      if (i + 1 >= data.length) {
        this.held = data.slice(i);
        break;
      }
      if (data[i + 1] !== CSI_OPEN) {
        out[o++] = b;
        i++;
        continue;
      }
      let j = i + 2;
      while (j < data.length && (data[j] as number) >= 0x30 && (data[j] as number) <= 0x3f) j++;
      if (j >= data.length) {
        if (data.length - i <= MAX_HELD) {
          this.held = data.slice(i);
          break;
        }
        out[o++] = b;
        i++;
        continue;
      }
      if (data[j] !== FINAL_M) {
        out[o++] = b;
        i++;
        continue;
      }
      const params = String.fromCharCode(...data.subarray(i + 2, j));
      const kept = undim(params);
      if (kept === params) {
        out.set(data.subarray(i, j + 1), o);
        o += j + 1 - i;
      } else if (kept !== null) {
        out[o++] = ESC;
        out[o++] = CSI_OPEN;
        for (let k = 0; k < kept.length; k++) out[o++] = kept.charCodeAt(k);
        out[o++] = FINAL_M;
      }
      i = j + 1;
    }
    return out.subarray(0, o);
  }
}

/** SGR parameters without a standalone 2: the same string when there was none, null when nothing is left. */
export function undim(params: string): string | null {
  if (!params.includes('2') || /^[<=>?]/.test(params)) return params;
  const parts = params.split(';');
  const kept: string[] = [];
  let dropped = false;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k] as string;
    if (p === '2') {
      dropped = true;
      continue;
    }
    kept.push(p);
    // an extended colour's own numbers: 5;n (256 colours) or 2;r;g;b (true colour)
    if (p === '38' || p === '48' || p === '58') {
      const mode = parts[k + 1];
      const take = mode === '5' ? 2 : mode === '2' ? 4 : 0;
      for (let t = 1; t <= take && k + 1 < parts.length; t++) kept.push(parts[++k] as string);
    }
  }
  if (!dropped) return params;
  return kept.length === 0 ? null : kept.join(';');
}
