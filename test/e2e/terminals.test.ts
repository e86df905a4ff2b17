/**
 * The terminals screen in real Chromium against a real room, with an agent played by a real MCP SDK client:
 * what the agent runs shows up live, what the person types reaches the agent (recorded as the person's),
 * a resize of the page reaches the PTY, and a 50 MB flood streams without freezing the page or growing the
 * room's memory. Needs `npm run build` (the renderer bundle in out/renderer).
 */
import { encodeCursor } from '../../src-main/engine/core/paging';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellIoResult, ShellView } from '../../src-main/common/methods/shells';
import type { RunningRoom } from '../../src-main/server/runner';
import { BASH } from '../engine/shells/helpers';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';
import { terminalSize, terminalText, waitFor } from './helpers/page-terminal';

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
const pageErrors: string[] = [];

/** A full collection, so memory growth is measured on what is still reachable. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/**
 * A full collection, twice, with a pause after each: V8 frees the memory of dead ArrayBuffers (every Buffer of
 * shell output) on a background thread after a collection, so `external` read at once still counts some of it.
 */
async function settledGarbage(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const tool = <T>(name: string, args: Record<string, unknown>) => callTool<T>(agent, name, args);

beforeAll(async () => {
  room = await startUiRoom({ pageErrors });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
}, 60_000);

afterAll(() => room?.close());

describe('terminals in the browser', () => {
  let shell: ShellView;

  it('a shell the agent opens appears in the list and its terminal', async () => {
    shell = (await tool<{ shell: ShellView }>('shell_open', { ...BASH, name: 'agent build' })).shell;
    const item = page.locator(`.shell-item[data-shell-id="${shell.id}"]`);
    await item.click();
    await expect.poll(() => page.getByTestId('terminal').getAttribute('data-shell-id')).toBe(shell.id);
    await expect.poll(() => terminalText(page, shell.id)).toContain('PROMPT>');
    expect(await page.locator('.shell-header').innerText()).toContain('agent');
  });

  it('what the person types reaches the shell, recorded as theirs, and the agent reads it', async () => {
    await page.getByTestId('terminal').click();
    await page.keyboard.type('echo hi');
    await page.keyboard.press('Enter');
    const seen = await waitFor(async () => {
      const io = await tool<ShellIoResult>('shell_io', { shellId: shell.id, cursor: 'start' });
      return /\r?\nhi\r?\n/.test(io.output) ? io : null;
    });
    expect(seen.output).toContain('echo hi');
    const listed = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.id === shell.id);
    expect(listed?.lastInput?.by).toBe(runner.engine.operator().name);
  });

  it("the agent's output appears in the terminal", async () => {
    await tool('shell_io', { shellId: shell.id, text: "printf 'agent-%s\\n' said\n" });
    await expect.poll(() => terminalText(page, shell.id)).toContain('agent-said');
  });

  it('search finds text in the scrollback and says when there is none; copy puts the screen on the clipboard', async () => {
    await page.getByTestId('search-toggle').click();
    const box = page.getByRole('searchbox');
    await box.fill('agent-said');
    await box.press('Enter');
    expect(await page.getByText('no match').count()).toBe(0);
    await box.fill('zzz-nowhere-in-the-output');
    await box.press('Enter');
    await page.getByText('no match').waitFor();
    await box.press('Escape');
    expect(await page.getByRole('searchbox').count()).toBe(0);

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('agent-said');
  });

  it('a resize of the page reaches the PTY (stty size), once the person takes the size of the agent\'s shell over', async () => {
    await page.getByTestId('take-over-size').click();
    const before = await terminalSize(page, shell.id);
    await page.setViewportSize({ width: 1600, height: 1000 });
    await expect.poll(async () => (await terminalSize(page, shell.id))?.cols).toBeGreaterThan(before?.cols ?? 0);
    const after = await terminalSize(page, shell.id);
    const io = await waitFor(async () => {
      const r = await tool<ShellIoResult>('shell_io', { shellId: shell.id, text: 'stty size\n', wait: { until: 'match', pattern: '^\\d+ \\d+', timeoutMs: 2000 } });
      return r.output.includes(`${after?.rows} ${after?.cols}`) ? r : null;
    });
    expect(io.output).toContain(`${after?.rows} ${after?.cols}`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('50 MB of output streams while the page keeps answering, and the room does not grow with it', async () => {
    const total = 50 * 1024 * 1024;
    // a first, smaller flood through the same path: what the room allocates once (compiled code, the stream's
    // frame buffers, caches) is not growth with the output, and is counted out of what follows
    await tool('shell_io', { shellId: shell.id, text: `yes 'warm-up line' | head -c ${8 * 1024 * 1024}; printf 'WARM-%s\\n' DONE\n` });
    await expect.poll(() => terminalText(page, shell.id), { timeout: 60_000 }).toContain('WARM-DONE');
    await settledGarbage();
    const before = process.memoryUsage();
    await tool('shell_io', { shellId: shell.id, text: `yes 'flood line of the e2e test' | head -c ${total}; printf 'FLOOD-%s\\n' DONE\n` });
    await expect.poll(() => terminalText(page, shell.id), { timeout: 20_000 }).toContain('flood line of the e2e test');

    // a click during the flood is answered: the search bar opens
    await page.getByTestId('search-toggle').click();
    await page.getByRole('searchbox').waitFor();
    const during = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.id === shell.id);
    expect(during?.outputBytes ?? Infinity).toBeLessThan(total);
    await page.keyboard.press('Escape');

    // the agent sees the end of the flood in the tail of the output
    await waitFor(async () => {
      const end = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.id === shell.id)?.outputBytes ?? 0;
      const tail = await tool<ShellIoResult>('shell_io', { shellId: shell.id, cursor: encodeCursor('shell', shell.id, [Math.max(0, end - 4096)]) });
      return tail.output.includes('FLOOD-DONE') ? tail : null;
    }, 120_000);
    await expect.poll(() => terminalText(page, shell.id), { timeout: 60_000 }).toContain('FLOOD-DONE');
    // The room holds a bounded scrollback ring and at most a high watermark per viewer. Buffering the flood
    // anywhere would keep >= 50 MB alive; RSS also carries freed-but-kept heap pages.
    await settledGarbage();
    const after = process.memoryUsage();
    const kept = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external; // external includes every ArrayBuffer and Buffer
    const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
    console.log(`[e2e] over a 50 MB flood: RSS grew ${mib(after.rss - before.rss)}, live memory ${mib(kept(after) - kept(before))}`);
    expect(kept(after) - kept(before)).toBeLessThan(16 * 1024 * 1024);
    expect(after.rss - before.rss).toBeLessThan(64 * 1024 * 1024);
  }, 180_000);

  it('the page raised no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
