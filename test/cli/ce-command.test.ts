import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ceCommand } from '../../src-main/cli/ce-command';

const BIN = path.resolve(__dirname, '../../bin');
const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ce-command-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('the ce command the banner tells a person to run', () => {
  it('is "ce" when the ce on the PATH is this Commonroom\'s (npm link, an install)', () => {
    const linked = tmp();
    fs.symlinkSync(path.join(BIN, 'ce.js'), path.join(linked, 'ce'));
    expect(ceCommand(['/nonexistent', linked].join(path.delimiter), path.join(BIN, 'commonroom.js'))).toBe('ce');
  });

  it("is this build's launcher by its full path when the PATH has no ce, or another program called ce", () => {
    const other = tmp();
    fs.writeFileSync(path.join(other, 'ce'), '#!/bin/sh\necho unrelated\n', { mode: 0o755 });
    const expected = `node ${fs.realpathSync(path.join(BIN, 'ce.js'))}`;
    expect(ceCommand(other, path.join(BIN, 'commonroom.js'))).toBe(expected);
    // ours further down the PATH is not what a shell runs: the other comes first
    const linked = tmp();
    fs.symlinkSync(path.join(BIN, 'ce.js'), path.join(linked, 'ce'));
    expect(ceCommand([other, linked].join(path.delimiter), path.join(BIN, 'commonroom.js'))).toBe(expected);
    expect(ceCommand('', path.join(BIN, 'commonroom.js'))).toBe(expected);
  });
});
