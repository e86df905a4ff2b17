import { describe, expect, it } from 'vitest';
import { UndimFilter, undim } from '../../src-renderer/src/features/terminals/terminal-undim';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const run = (...chunks: string[]) => {
  const f = new UndimFilter();
  return chunks.map((c) => dec(f.filter(enc(c)))).join('');
};

describe('dim text is drawn in its own colour (SGR 2 taken out)', () => {
  it('drops a standalone 2, keeps the rest of the sequence, and drops a sequence left empty', () => {
    expect(run('\x1b[2m[12:00] dim\x1b[0m')).toBe('[12:00] dim\x1b[0m');
    expect(run('\x1b[2;90mgrey\x1b[22m')).toBe('\x1b[90mgrey\x1b[22m');
    expect(run('\x1b[1;2;31mx')).toBe('\x1b[1;31mx');
    expect(run('plain text, no escapes')).toBe('plain text, no escapes');
  });

  it('keeps the 2 of a true colour, of a 256-colour index, of colon forms and of private sequences', () => {
    expect(undim('38;2;10;2;30')).toBe('38;2;10;2;30');
    expect(undim('2;38;2;10;20;30')).toBe('38;2;10;20;30');
    expect(undim('48;5;2;2')).toBe('48;5;2');
    expect(undim('38:2::1:2:3')).toBe('38:2::1:2:3');
    expect(undim('>4;2')).toBe('>4;2');
    expect(undim('22')).toBe('22');
    expect(undim('2')).toBeNull();
  });

  it('holds a sequence split across frames until its end arrives, and leaves other sequences alone', () => {
    expect(run('a\x1b', '[2', 'mb\x1b[', '31;2mc')).toBe('ab\x1b[31mc');
    expect(run('\x1b[2J\x1b[H\x1b[?25l\x1b]0;title\x07')).toBe('\x1b[2J\x1b[H\x1b[?25l\x1b]0;title\x07');
    expect(run('€ ok \x1b[2mé\x1b[0m')).toBe('€ ok é\x1b[0m');
  });
});
