/**
 * Contrast everywhere (issue 46, item 7): axe-core finds no serious or critical issue on the states the walk's
 * screens did not look at — a terminal showing dim text (SGR 2, as dev servers print timestamps and agent CLIs
 * their status lines) and the 90-series greys, in both schemes; a busy shell selected in the list; the review's
 * diff in the dark scheme. The terminal keeps its text at 4.5:1 at least (xterm's minimumContrastRatio), checked
 * too on the colours xterm drew. In real Chromium against a real room and a real git repository. Screenshots at
 * 1440, 1024 and 390 to /work/shots/wt-screens (else test-output/). Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { git, makeRepo } from '../helpers/git-repo';
import { axeCount, printAxeCounts, tintContrast, type AxeCount } from './helpers/axe';
import { outputFile } from './helpers/open-ui';
import { terminalText } from './helpers/page-terminal';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

const SHOTS = '/work/shots/wt-screens';
const shot = (name: string) => (fs.existsSync(SHOTS) ? path.join(SHOTS, name) : outputFile(name));
const SIZES = [[1440, 900], [1024, 768], [390, 844]] as const;

let room: UiRoom;
let page: Page;
let agent: Client;
const pageErrors: string[] = [];
const counts: AxeCount[] = [];
type H = { handoff: HandoffView };

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['lead', 'dev'] });
  ({ page } = room);
  agent = room.agents[1] as Client;
}, 60_000);
afterAll(async () => {
  if (counts.length > 0) printAxeCounts(counts);
  await room?.close();
});

/** Counts axe's findings on the page now, as `name`, in both schemes at each size, and saves the pictures. */
async function check(name: string, sizes: readonly (readonly [number, number])[] = SIZES): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of sizes) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(250); // the terminal redraws in the new colours (a picture, not an assertion)
      await page.screenshot({ path: shot(`contrast-${name}-${width}-${scheme}.png`) });
      counts.push(await axeCount(page, `${name} ${width}`, scheme));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The contrast of the selected shell's status badge on its row's tint over the list (WCAG 2), as a person sees it. */
const badgeContrast = (p: Page) => tintContrast(p, '.shell-item.selected .badge', '.shell-item', '.shell-list');

const DIM_SCRIPT = [
  "printf '\\033[2m[12:00:01] dim: compiled in 812 ms\\033[0m\\n'",
  "printf '\\033[90m[12:00:02] grey 90: waiting for file changes\\033[0m\\n'",
  "printf '\\033[2;90m[12:00:03] dim grey: press h for help\\033[0m\\n'",
  "printf '\\033[37m white 37 \\033[97m bright white 97 \\033[30m black 30 \\033[0m\\n'",
  "printf '\\033[2;37m dim white \\033[0m plain text\\n'",
].join('; ');

describe('contrast', () => {
  it('a terminal with dim and grey text, a busy shell selected: no serious or critical finding, text at 4.5:1', { timeout: 120_000 }, async () => {
    const { shell: quiet } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { name: 'dev server', shell: '/bin/sh', args: ['-c', `${DIM_SCRIPT}; exec sleep 600`], cols: 100, rows: 20 });
    const { shell: busy } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { name: 'busy build', shell: '/bin/sh', args: ['-c', `${DIM_SCRIPT}; while true; do printf '\\033[2m.\\033[0m'; sleep 0.2; done`], cols: 100, rows: 20 });
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.locator(`.shell-item[data-shell-id="${quiet.id}"]`).click();
    await expect.poll(() => terminalText(page, quiet.id)).toContain('bright white 97');
    // xterm keeps every cell it drew at 4.5:1 against the terminal's background, in both schemes
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(250);
      expect(await page.evaluate(() => (globalThis as unknown as { commonroomInspect: { terminalMinimumContrast(id: string): number | null } }).commonroomInspect.terminalMinimumContrast(document.querySelector('[data-testid="terminal"]')?.getAttribute('data-shell-id') ?? ''))).toBeGreaterThanOrEqual(4.5);
    }
    await check('terminal-dim');
    await page.locator(`.shell-item[data-shell-id="${busy.id}"]`).click();
    await expect.poll(() => page.locator('.shell-item.selected .badge').innerText(), { timeout: 15_000 }).toMatch(/busy|working/);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await badgeContrast(page), `busy badge on the selected shell, ${scheme}`).toBeGreaterThanOrEqual(4.5);
    }
    await check('terminal-busy-selected', [[1440, 900], [390, 844]]);
    const bad = counts.filter((c) => c.serious + c.critical > 0);
    expect(bad.flatMap((c) => c.findings.map((f) => `${c.screen} ${c.scheme}: ${f}`))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('the dark diff: no serious or critical finding', { timeout: 120_000 }, async () => {
    const lead = room.agents[0] as Client;
    const repo = makeRepo(path.join(room.home.root, 'contrast repo'), { 'src/parser.ts': "export function parse(text: string): string[] {\n  return text.split(',');\n}\n", 'README.md': '# parser\n' });
    const h = (await callTool<H>(lead, 'handoff_create', { summary: 'Trim the fields', to: 'dev', workspace: { repo } })).handoff;
    const accepted = (await callTool<H>(agent, 'handoff_accept', { handoffId: h.id })).handoff;
    const folder = accepted.workspace?.path ?? '';
    fs.writeFileSync(path.join(folder, 'src', 'parser.ts'), "export function parse(text: string): string[] {\n  // trims each field\n  return text.split(',').map((field) => field.trim());\n}\n");
    fs.writeFileSync(path.join(folder, 'README.md'), '# parser\n\nSplits and trims.\n');
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', 'Trim parsed fields');
    await callTool(agent, 'handoff_complete', { handoffId: h.id, result: 'Fields are trimmed.' });
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${h.id}"]`).click();
    await page.getByRole('region', { name: 'Change' }).getByTestId('diff-file').first().waitFor();
    const before = counts.length;
    await check('diff', [[1440, 900], [390, 844]]);
    const bad = counts.slice(before).filter((c) => c.serious + c.critical > 0);
    expect(bad.flatMap((c) => c.findings.map((f) => `${c.screen} ${c.scheme}: ${f}`))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
