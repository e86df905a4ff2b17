/**
 * From a completed task to a merge, as a person reviews it in real Chromium against a real room and a real git
 * repository, the agent a scripted stand-in the room started in a terminal of its own: the review shows the
 * conflict with main before anyone approves (Approve and merge is not the primary action), the person comments on
 * a line and requests changes, the comment arrives in the agent's terminal as a line at its prompt, the agent's
 * next completion is shown as "changed since last review", and it merges. Screenshots at 1440, 1024 and 390,
 * light and dark, go to /work/shots/wt-review/ (or $SHOTS). Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { git, makeRepo } from '../helpers/git-repo';
import { axeCount, printAxeCounts, type AxeCount } from './helpers/axe';
import { terminalText } from './helpers/page-terminal';
import { callTool, connectWithToken, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
const pageErrors: string[] = [];
const SHOTS = process.env.SHOTS ?? '/work/shots/wt-review';
const SIZES = [
  [1440, 900],
  [1024, 768],
  [390, 844],
] as const;

const axeCounts: AxeCount[] = [];

/** The page at each size and scheme, saved as `<name>-<width>-<scheme>.png` (axe run at 1440 and 390); back to 1440 light after. */
async function shoot(page: Page, name: string, scrollTo?: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      // (the diff draws again on a change of scheme: the element may be replaced while it is looked for)
      if (scrollTo) await page.locator(scrollTo).first().scrollIntoViewIfNeeded().catch(() => page.locator(scrollTo).first().scrollIntoViewIfNeeded());
      await page.waitForTimeout(150); // a layout pass and the diff's highlight after a resize
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}-${scheme}.png`) });
      if (width !== 1024) axeCounts.push(await axeCount(page, `${name} ${width}`, scheme));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Elements that reach past the right edge of a phone's screen (none may: the page must not scroll sideways). */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1) continue;
      // a diff's own lines and a log may scroll sideways inside their box; nothing else may
      const clipped = el.closest('.diff-file, pre, .xterm') !== null && !el.matches('.diff-file, pre, .xterm');
      if (!clipped) out.push(`${el.tagName.toLowerCase()}.${Array.from(el.classList).join('.')} right=${Math.round(r.right)}`);
    }
    return out.slice(0, 10);
  });
}

/** The parser: eight lines of header (hidden around the hunk until expanded), then the function. */
const HEADER = Array.from({ length: 8 }, (_, i) => `// parser header line ${i + 1}`);
const PARSER = [...HEADER, 'export function parse(text: string): string[] {', "  return text.split(',');", '}', ''].join('\n');
const op = () => room.runner.engine.operator();

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: [] });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(() => room?.close());

describe('a review from conflict to merge', () => {
  it('shows the conflict before approving, carries a line comment to the agent\'s terminal, and reviews the next completion against the last', { timeout: 240_000 }, async () => {
    const { page, runner } = room;
    const engine = runner.engine;
    const repo = makeRepo(path.join(room.home.root, 'parser app'), { 'src/parser.ts': PARSER, 'README.md': '# parser\n' });

    // the stand-in agent: a program the room started in a terminal; it prints its token and echoes each line typed at its prompt
    const script = path.join(room.home.root, 'stand-in.sh');
    fs.writeFileSync(script, `#!/bin/sh\nprintf 'stand-in agent ready (token %s)\\n' "$COMMONROOM_TOKEN"\nwhile IFS= read -r line; do printf 'agent read: %s\\n' "$line"; done\n`, { mode: 0o755 });
    const { agent } = await engine.call(op(), 'agent_start', { client: 'command', command: [script], cwd: room.home.root, cols: 110, rows: 30 });
    const shellText = async () => (await engine.call(op(), 'shell_io', { shellId: agent.shellId, cursor: 'start' })).output;
    await expect.poll(shellText, { timeout: 15_000 }).toMatch(/token \S+\)/);
    const me: Client = await connectWithToken(runner, /token (\S+)\)/.exec(await shellText())?.[1] ?? '');

    // the person's task, the agent's commit in its worktree and a passing check; main meanwhile changes the same line
    const { handoff } = await engine.call(op(), 'handoff_create', { summary: 'Trim the fields the parser returns', to: agent.participant, workspace: { repo } });
    const { handoff: accepted } = await callTool<{ handoff: HandoffView }>(me, 'handoff_accept', { handoffId: handoff.id });
    const tree = accepted.workspace?.path ?? '';
    fs.writeFileSync(path.join(tree, 'src/parser.ts'), PARSER.replace("text.split(',')", "text.split(',').map((field) => field.trim())"));
    git(tree, 'commit', '-qam', 'Trim parsed fields');
    const { graphId } = await callTool<{ graphId: string }>(me, 'tasks_run', { name: 'unit tests', handoffId: handoff.id, stages: [{ id: 'unit', command: 'grep -q trim src/parser.ts' }] });
    await callTool(me, 'tasks_status', { graphId, stages: false, until: 'ended', waitMs: 20_000 });
    fs.writeFileSync(path.join(repo, 'src/parser.ts'), PARSER.replace("text.split(',')", "text.split(/[,;]/)"));
    git(repo, 'commit', '-qam', 'Split on semicolons too');
    await callTool(me, 'handoff_complete', { handoffId: handoff.id, result: 'Fields are trimmed; the unit tests pass.' });

    // the review says it conflicts before anyone approves, and Approve and merge is not the primary action
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${handoff.id}"]`).click();
    const bar = page.getByRole('group', { name: 'Decision' });
    await expect.poll(() => bar.getByTestId('preview-merge').innerText(), { timeout: 20_000 }).toBe('main moved 1 commit since; conflicts in src/parser.ts');
    expect(await bar.getByTestId('preview-checks').innerText()).toBe('checks passed');
    expect(await bar.getByTestId('approve').getAttribute('class')).not.toContain('primary');
    expect(await bar.getByTestId('send-back-conflicts').getAttribute('class')).toContain('primary');
    // at 1024×768 the diff's lines are on screen on opening, above the decision bar
    await page.setViewportSize({ width: 1024, height: 768 });
    const firstLine = page.locator('.diff-file').first().locator('tr[data-line]:visible, .diff-plain span:visible').first();
    await firstLine.waitFor();
    const lineBox = await firstLine.boundingBox();
    const barBox = await bar.boundingBox();
    expect(lineBox && barBox && lineBox.y + lineBox.height <= barBox.y).toBe(true);
    // on a phone nothing reaches past the screen's edge, and the decision is on screen
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await overflowing(page)).toEqual([]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await shoot(page, '1-conflict-before-approve');

    // the lines around the hunk, one click away
    const parserDiff = page.locator('.diff-file[data-path="src/parser.ts"]');
    expect(await parserDiff.innerText()).not.toContain('parser header line 1');
    await parserDiff.locator('button[title="Expand Up"], button[title="Expand All"]').first().click();
    await expect.poll(() => parserDiff.innerText()).toContain('parser header line 1');

    // a comment on the changed line, then Request changes with a reason
    const row = page.locator('.diff-file[data-path="src/parser.ts"] tr', { hasText: 'field.trim()' }).first();
    await row.hover();
    await row.locator('.diff-add-widget').first().click();
    await page.locator('#line-comment-text').fill('Keep empty fields out too: filter((f) => f !== "")');
    await page.getByTestId('save-line-comment').click();
    await page.getByTestId('line-comments').getByText('Keep empty fields out too').waitFor();
    expect(await page.getByTestId('viewed-count').innerText()).toBe('0/1 viewed');
    await page.locator('#reject-reason').fill('Close: merge main in and drop empty fields');
    await shoot(page, '2-line-comment-request-changes', '.line-comments');
    await bar.getByRole('button', { name: 'Request changes (1)' }).click();
    await page.getByTestId('decision-toast').filter({ hasText: 'Rejecting' }).waitFor();
    await expect.poll(async () => (await engine.call(op(), 'handoff_get', { handoffId: handoff.id })).handoff.status, { timeout: 20_000 }).toBe('rejected');
    const rejected = (await engine.call(op(), 'handoff_get', { handoffId: handoff.id })).handoff;
    expect(rejected.decision?.comments).toEqual([{ path: 'src/parser.ts', line: 10, text: 'Keep empty fields out too: filter((f) => f !== "")' }]);

    // the comment reaches the agent: a line at its prompt in its terminal, and its handoff
    await expect.poll(shellText, { timeout: 15_000 }).toContain('agent read: [Commonroom] operator requested changes on handoff');
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.locator(`.shell-item[data-shell-id="${agent.shellId}"]`).click();
    await expect.poll(() => terminalText(page, agent.shellId), { timeout: 15_000 }).toContain('src/parser.ts:10 Keep empty fields out too');
    await shoot(page, '3-comment-in-agent-terminal');
    const followUp = (await callTool<{ handoffs: HandoffView[] }>(me, 'handoff_list', { status: 'open' })).handoffs.find((h) => h.workspace?.continues?.handoffId === handoff.id);
    expect(followUp?.workspace?.continues?.comments?.[0]?.line).toBe(10);

    // the agent goes on in the same worktree: merges main, drops empty fields, completes again
    await callTool(me, 'handoff_accept', { handoffId: followUp?.id });
    git(tree, 'merge', '-q', '-X', 'ours', '-m', 'Merge main', 'main');
    fs.writeFileSync(path.join(tree, 'src/parser.ts'), PARSER.replace("text.split(',')", "text.split(/[,;]/).map((field) => field.trim()).filter((f) => f !== '')"));
    git(tree, 'commit', '-qam', 'Drop empty fields');
    const again = await callTool<{ graphId: string }>(me, 'tasks_run', { name: 'unit tests', handoffId: followUp?.id, stages: [{ id: 'unit', command: 'grep -q filter src/parser.ts' }] });
    await callTool(me, 'tasks_status', { graphId: again.graphId, stages: false, until: 'ended', waitMs: 20_000 });
    await callTool(me, 'handoff_complete', { handoffId: followUp?.id, result: 'Merged main; empty fields are dropped.' });

    // its review opens on what changed since the last review, and now merges cleanly
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${followUp?.id}"]`).click();
    await expect.poll(() => page.getByTestId('since-review').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('since-note').innerText()).toMatch(/^Changed since last review: [0-9a-f]{7} \(reviewed when it was sent back\) → [0-9a-f]{7} \(now\)/);
    await expect.poll(() => page.locator('.diff-file[data-path="src/parser.ts"]').innerText()).toContain("filter((f) => f !== '')");
    await expect.poll(() => bar.getByTestId('preview-merge').innerText(), { timeout: 20_000 }).toBe('main has not moved; merges as a fast-forward');
    expect(await bar.getByTestId('approve').getAttribute('class')).toContain('primary');
    expect(await page.getByTestId('sent-comments').innerText()).toContain('src/parser.ts:10');
    await shoot(page, '4-changed-since-last-review');

    // viewed marks stay with the person, the handoff and the commit
    await page.locator('.diff-file[data-path="src/parser.ts"]').getByTestId('file-viewed').check();
    expect(await page.getByTestId('viewed-count').innerText()).toMatch(/^1\/\d+ viewed$/);
    // kept: away to another screen and back, the mark is still there
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${followUp?.id}"]`).click();
    await expect.poll(() => page.getByTestId('viewed-count').innerText()).toMatch(/^1\/\d+ viewed$/);
    await page.getByRole('button', { name: /Approve and merge/ }).click();
    await expect.poll(async () => (await engine.call(op(), 'handoff_get', { handoffId: followUp?.id ?? '' })).handoff.workspace?.state, { timeout: 20_000 }).toBe('merged');
    expect(git(repo, 'show', 'main:src/parser.ts')).toContain('filter((f) => f !== \'\')');
    await me.close();
    await engine.call(op(), 'agent_stop', { shellId: agent.shellId, revoke: true });
    expect(pageErrors).toEqual([]);
    printAxeCounts(axeCounts);
    expect(axeCounts.flatMap((c) => c.findings.map((f) => `${c.screen} ${c.scheme}: ${f}`))).toEqual([]);
  });
});
