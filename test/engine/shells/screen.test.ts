import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASH, shellBench, type ShellBench } from './helpers';

let bench: ShellBench;
beforeAll(async () => {
  bench = await shellBench();
});
afterAll(() => bench.close());

const screen = (shellId: string) => bench.io({ shellId, format: 'screen' });
const VIM = ['/usr/bin/vim', '/usr/bin/vi'].find((f) => fs.existsSync(f));

describe('format "screen": the terminal as a person sees it', () => {
  it('renders cursor-positioned output the way a terminal shows it, with the cursor', { timeout: 60_000 }, async () => {
    const shell = await bench.open({ cols: 40, rows: 8 });
    // clear, write at the top left, in the middle, overwrite the top left, then park the cursor on row 5
    const ran = await bench.engine.call(bench.operator, 'shell_run', {
      shellId: shell.id,
      command: "printf '\\033[2J\\033[1;1HTOP-LEFT\\033[3;5HMIDDLE\\033[1;1HOVER\\033[5;1H'",
      timeoutMs: 20_000,
    });
    expect(ran.exitCode).toBe(0);
    // the text format can only concatenate what was written
    expect(ran.output).toBe('TOP-LEFTMIDDLEOVER');
    const shot = await screen(shell.id);
    expect(shot.output.split('\n')).toEqual(['OVERLEFT', '', '    MIDDLE', '', 'PROMPT>', '', '', '']);
    expect(shot.screen).toEqual({ cols: 40, rows: 8, cursor: { row: 4, col: 8 }, alternateScreen: false, applicationCursorKeys: false });
    // the marks are in the byte stream, never on the screen
    expect(shot.output).not.toMatch(/133/);
    expect(shot.nextCursor).toBe(shot.cursor);
  });

  it('follows a resize', { timeout: 30_000 }, async () => {
    const shell = await bench.open({ cols: 40, rows: 8 });
    await bench.engine.call(bench.operator, 'shell_run', { shellId: shell.id, command: 'true', timeoutMs: 20_000 });
    const resized = await bench.io({ shellId: shell.id, resize: { cols: 30, rows: 5 }, format: 'screen' });
    expect(resized.screen).toMatchObject({ cols: 30, rows: 5 });
    expect(resized.output.split('\n')).toHaveLength(5);
  });

  it.skipIf(!VIM)('reads vim with a known file, and arrow keys follow its cursor-key mode', { timeout: 60_000 }, async () => {
    const file = path.join(bench.home.root, 'known.txt');
    fs.writeFileSync(file, 'alpha\nbeta\ngamma\n');
    const shell = await bench.open({ ...BASH, cols: 40, rows: 8, cwd: bench.home.root });
    await bench.engine.call(bench.operator, 'shell_run', { shellId: shell.id, command: 'true', timeoutMs: 20_000 }); // at a prompt
    await bench.io({ shellId: shell.id, text: `${VIM} -u NONE -i NONE -N known.txt\r` });
    await expect.poll(async () => (await screen(shell.id)).output.split('\n')[2], { timeout: 20_000 }).toBe('gamma');
    const shot = await screen(shell.id);
    const lines = shot.output.split('\n');
    expect(lines.slice(0, 7)).toEqual(['alpha', 'beta', 'gamma', '~', '~', '~', '~']);
    expect(lines[7]).toMatch(/^"known\.txt" (3L, 17B|3 lines, 17 bytes)/);
    expect(shot.screen).toMatchObject({ cursor: { row: 0, col: 0 }, alternateScreen: true, applicationCursorKeys: true });

    // Down twice and End: vim moves to the end of "gamma"
    await bench.io({ shellId: shell.id, input: [{ key: 'Down' }, { key: 'Down' }, { key: 'End' }] });
    await expect.poll(async () => (await screen(shell.id)).screen?.cursor, { timeout: 20_000 }).toEqual({ row: 2, col: 4 });

    await bench.io({ shellId: shell.id, input: [{ key: 'Escape' }, { text: ':q!' }, { key: 'Enter' }] });
    await expect.poll(async () => (await screen(shell.id)).screen?.alternateScreen, { timeout: 20_000 }).toBe(false);
  });

  it('sends ESC O A for Up in application cursor-key mode and ESC [ A otherwise', { timeout: 60_000 }, async () => {
    const shell = await bench.open();
    await bench.engine.call(bench.operator, 'shell_run', { shellId: shell.id, command: "printf '\\033[?1h'", timeoutMs: 20_000 });
    expect((await screen(shell.id)).screen?.applicationCursorKeys).toBe(true);
    // the shell hands the terminal back to line mode before it runs the line: keys typed after READY reach cat.
    // The wait is for the terminal's echo *and* cat's own copy: READY and the echo can both come before cat is the
    // terminal's foreground process, and a C-c sent then would miss it and leave cat running.
    await bench.io({ shellId: shell.id, text: "printf 'RE%s\\n' ADY; cat -v\r", wait: { until: 'match', pattern: '^READY$' } });
    const app = await bench.io({ shellId: shell.id, input: [{ key: 'Up' }, { key: 'Enter' }], wait: { until: 'match', pattern: '^\\^\\[OA\\r?\\n\\^\\[OA\\r?$' } });
    expect(app.wait?.reason).toBe('matched');
    await bench.io({ shellId: shell.id, input: [{ key: 'C-c' }] });
    await bench.engine.call(bench.operator, 'shell_run', { shellId: shell.id, command: "printf '\\033[?1l'", timeoutMs: 20_000 });
    expect((await screen(shell.id)).screen?.applicationCursorKeys).toBe(false);
    await bench.io({ shellId: shell.id, text: "printf 'RE%s\\n' ADY; cat -v\r", wait: { until: 'match', pattern: '^READY$' } });
    const normal = await bench.io({ shellId: shell.id, input: [{ key: 'Up' }, { key: 'Enter' }], wait: { until: 'match', pattern: '^\\^\\[\\[A\\r?\\n\\^\\[\\[A\\r?$' } });
    expect(normal.wait?.reason).toBe('matched');
    await bench.io({ shellId: shell.id, input: [{ key: 'C-c' }] });
  });
});
