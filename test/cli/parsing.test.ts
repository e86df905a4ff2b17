import { describe, expect, it } from 'vitest';
import { parseCapabilities } from '../../src-main/common/capabilities';
import { RoomError } from '../../src-main/common/errors';
import { parseArgs, portFlag, UsageError } from '../../src-main/cli/args';

describe('parseCapabilities', () => {
  it.each([
    ['read', ['read']],
    ['write,read', ['read', 'write']],
    [' approve , read,read ', ['read', 'approve']],
    ['operate,approve,write,read', ['read', 'write', 'approve', 'operate']],
  ])('%j → %j', (text, expected) => {
    expect(parseCapabilities(text)).toEqual(expected);
  });

  it.each([[''], [','], ['read,fly'], ['READ']])('refuses %j with a message naming the valid words', (text) => {
    expect(() => parseCapabilities(text)).toThrow(RoomError);
    expect(() => parseCapabilities(text)).toThrow(/read, write, approve, operate/);
  });
});

describe('parseArgs', () => {
  const spec = { room: 'string', port: 'string', json: 'boolean' } as const;

  it('reads flags in both spellings and keeps positionals in order', () => {
    expect(parseArgs(['a', '--room', 'x.md', 'b', '--port=7', '--json'], spec)).toEqual({
      positional: ['a', 'b'],
      flags: { room: 'x.md', port: '7', json: true },
    });
  });

  it('stops at -- ', () => {
    expect(parseArgs(['--', '--room'], spec).positional).toEqual(['--room']);
  });

  it.each([
    [['--nope'], /unknown option --nope/],
    [['--room'], /--room needs a value/],
    [['--room', '--json'], /--room needs a value/],
    [['--json=1'], /--json takes no value/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv, spec)).toThrow(UsageError);
    expect(() => parseArgs(argv, spec)).toThrow(message);
  });

  it.each([['0', 0], ['65535', 65535]])('accepts port %s', (raw, port) => {
    expect(portFlag(parseArgs(['--port', raw], spec), 1)).toBe(port);
  });

  it.each([['-1'], ['65536'], ['12ab'], ['1.5']])('refuses port %s', (raw) => {
    expect(() => portFlag(parseArgs([`--port=${raw}`], spec), 1)).toThrow(/--port must be a number from 0 to 65535/);
  });
});
