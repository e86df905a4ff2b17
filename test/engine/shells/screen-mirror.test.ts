/**
 * A shell's terminal emulator is made only when something needs the screen (a read, keys that follow its modes,
 * a question the program asks its terminal), from the ring's tail, and let go when nothing has needed it for a
 * while: the screen read and the answers stay what a terminal that followed all along would give.
 */
import { describe, expect, it } from 'vitest';
import { ScrollbackRing } from '../../../src-main/engine/shells/scrollback-ring';
import { QueryScanner } from '../../../src-main/engine/terminal/query-scanner';
import { ScreenMirror } from '../../../src-main/engine/terminal/screen-mirror';

function mirrored(options: { idleMs?: number; live?: boolean } = {}) {
  const ring = new ScrollbackRing(1024 * 1024, 10_000);
  const mirror = new ScreenMirror(ring, 40, 5, 0, options);
  const replies: string[] = [];
  mirror.onReply((r) => replies.push(r));
  const out = (text: string) => {
    const bytes = Buffer.from(text);
    ring.append(bytes);
    mirror.grew(bytes);
  };
  return { ring, mirror, replies, out };
}

describe('the screen emulator, made when needed', () => {
  it('is not made by output that asks nothing (text, colours, cursor moves, titles, marks)', () => {
    const { mirror, out } = mirrored();
    out('plain line\r\n\x1b[31mred\x1b[0m \x1b[2J\x1b[H\x1b[?2004h\x1b]0;a title\x07\x1b]133;A;n\x1b\\$ ');
    for (let i = 0; i < 100; i++) out(`line ${i}\r\n`);
    expect(mirror.made).toBe(false);
  });

  it('a screen read makes it from the ring, and one made again after it was let go shows the same screen', async () => {
    const { mirror, out } = mirrored({ idleMs: 20 });
    out('\x1b[2J\x1b[1;1Hfirst\x1b[3;5Hmiddle\x1b[5;1H$ ');
    expect(mirror.made).toBe(false);
    const shot = await mirror.snapshot();
    expect(shot.lines).toEqual(['first', '', '    middle', '', '$']);
    expect(shot.cursor).toEqual({ row: 4, col: 2 });
    await expect.poll(() => mirror.made, { timeout: 20_000 }).toBe(false);
    out('ls');
    expect(mirror.made).toBe(false);
    expect((await mirror.snapshot()).lines).toEqual(['first', '', '    middle', '', '$ ls']);
  });

  it('answers a question the moment it is asked, even split across chunks, and only that question', async () => {
    const { mirror, replies, out } = mirrored({ idleMs: 20 });
    out('abc\x1b[');
    expect(mirror.made).toBe(false);
    out('6n');
    expect(mirror.made).toBe(true);
    await mirror.settled();
    expect(replies).toEqual(['\x1b[1;4R']);
    // let go, then asked again: the old question in the ring's tail is not answered a second time
    await expect.poll(() => mirror.made, { timeout: 20_000 }).toBe(false);
    out('\r\nxy\x1b[c');
    await mirror.settled();
    expect(replies).toEqual(['\x1b[1;4R', '\x1b[?1;2c']);
    out('\x1b[?1$p\x1b[6n');
    await mirror.settled();
    expect(replies).toEqual(['\x1b[1;4R', '\x1b[?1;2c', '\x1b[?1;2$y', '\x1b[2;3R']);
  });

  it('a screen read answers nothing the program asked before it (those were answered when asked)', async () => {
    const { mirror, replies, out } = mirrored({ idleMs: 20 });
    out('\x1b[c');
    await mirror.settled();
    expect(replies).toEqual(['\x1b[?1;2c']);
    await expect.poll(() => mirror.made, { timeout: 20_000 }).toBe(false);
    out('no question here');
    expect((await mirror.snapshot()).lines[0]).toBe('no question here');
    expect(replies).toEqual(['\x1b[?1;2c']);
  });

  it('keys follow the modes the program set before the emulator was made', async () => {
    const { mirror, out } = mirrored();
    out('\x1b[?1h\x1b[?1049hfull screen');
    expect(mirror.applicationCursorKeys).toBe(false); // nothing made yet: callers settle first
    await mirror.settled();
    expect(mirror.applicationCursorKeys).toBe(true);
    expect((await mirror.snapshot()).alternateScreen).toBe(true);
  });

  it('a live one (status rules read the screen) is there from the start and never let go', async () => {
    const { mirror, out } = mirrored({ live: true, idleMs: 10 });
    expect(mirror.made).toBe(true);
    out('Do you want to proceed? (y/n)');
    await mirror.settled();
    await new Promise((r) => setTimeout(r, 50));
    expect(mirror.made).toBe(true);
    expect(mirror.visibleLines()[0]).toBe('Do you want to proceed? (y/n)');
  });
});

describe('QueryScanner', () => {
  const scan = (...chunks: string[]) => {
    const scanner = new QueryScanner();
    let offset = 0;
    for (const chunk of chunks) {
      const at = scanner.feed(Buffer.from(chunk), offset);
      if (at !== null) return at;
      offset += Buffer.byteLength(chunk);
    }
    return null;
  };

  it('finds the questions a terminal answers, where they begin', () => {
    expect(scan('ab\x1b[c')).toBe(2);
    expect(scan('\x1b[>0c')).toBe(0);
    expect(scan('x\x1b[5n')).toBe(1);
    expect(scan('\x1b[?6n')).toBe(0);
    expect(scan('\x1b[?2026$p')).toBe(0);
    expect(scan('\x1b[18t')).toBe(0);
    expect(scan('\x1b[>0q')).toBe(0);
    expect(scan('\x1bP$qm\x1b\\')).toBe(0);
    expect(scan('abc\x1b', '[', '6', 'n')).toBe(3);
  });

  it('passes what is not a question', () => {
    expect(scan('\x1b[31;1m\x1b[2J\x1b[10;20H\x1b[?25l\x1b[?2004h\x1b[K\x1b[2 q\x1b[?u')).toBeNull();
    expect(scan('\x1b]0;title with [c in it\x07', '\x1b]133;D;0;nonce\x1b\\', 'plain [6n text')).toBeNull();
    expect(scan('\x1b[6\x18n')).toBeNull(); // cancelled
  });
});
