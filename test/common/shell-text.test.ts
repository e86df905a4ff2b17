import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../src-main/common/ansi';
import { RoomError } from '../../src-main/common/errors';
import { keyBytes } from '../../src-main/common/shell-keys';

describe('keyBytes', () => {
  it.each([
    ['C-c', '\u0003'],
    ['C-d', '\u0004'],
    ['C-C', '\u0003'],
    ['C-z', '\u001a'],
    ['C-[', '\u001b'],
    ['C-@', '\u0000'],
    ['Enter', '\r'],
    ['Tab', '\t'],
    ['Escape', '\u001b'],
    ['Up', '\u001b[A'],
    ['Left', '\u001b[D'],
    ['M-x', '\u001bx'],
    ['M-Enter', '\u001b\r'],
    ['C-M-a', '\u001b\u0001'],
    ['F5', '\u001b[15~'],
  ])('%s → %j', (name, bytes) => {
    expect(keyBytes(name)).toBe(bytes);
  });

  it.each([['C-'], ['ctrl-c'], ['x'], ['C-é'], ['Hyper-a'], ['']])('refuses %j, listing what is accepted', (name) => {
    expect(() => keyBytes(name)).toThrow(RoomError);
    expect(() => keyBytes(name)).toThrow(/C-<letter>/);
  });
});

describe('stripAnsi', () => {
  it.each([
    ['\u001b[31mred\u001b[0m plain', 'red plain'],
    ['a\r\nb', 'a\nb'],
    ['\u001b]0;title\u0007prompt$ ', 'prompt$ '],
    ['\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\', 'link'],
    ['\u001b[?2004hbracketed', 'bracketed'],
    ['10%\r50%\r100%\n', '10%\n50%\n100%\n'],
    ['bell\u0007 and tab\t', 'bell and tab\t'],
    ['emoji 😀 and 漢字', 'emoji 😀 and 漢字'],
  ])('%j → %j', (input, output) => {
    expect(stripAnsi(input)).toBe(output);
  });
});
