/**
 * Reviewing work in the inbox, in real Chromium against a real room, agents played by real MCP SDK clients
 * and a real git repository: the handoff's change as git made it (file list with counts, each file's diff
 * highlighted, unified and split), the run that tested it with its failed stage's log one click away, what was
 * left uncommitted, and "Approve and merge" that puts the commit on the base branch. A large change (5,000
 * lines over 40 files) starts collapsed. Screenshots go to test-output/screens/. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { REPO } from '../helpers/env';
import { git, makeRepo as makeGitRepo } from '../helpers/git-repo';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let lead: Client;
let dev: Client;
const pageErrors: string[] = [];
const SHOTS = path.join(REPO, 'test-output', 'screens');
const makeRepo = (name: string) =>
  makeGitRepo(path.join(room.home.root, name), {
    'src/parser.ts': ['export function parse(text: string): string[] {', "  return text.split(',');", '}', ''].join('\n'),
    'README.md': '# parser\n',
  });

type H = { handoff: HandoffView };

/** lead hands `summary` to dev with a workspace on `repo`; dev accepts and gets the worktree. */
async function begin(repo: string, summary: string): Promise<HandoffView> {
  const { handoff } = await callTool<H>(lead, 'handoff_create', { summary, to: 'dev', workspace: { repo } });
  return (await callTool<H>(dev, 'handoff_accept', { handoffId: handoff.id })).handoff;
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['lead', 'dev'] });
  [lead, dev] = room.agents as [Client, Client];
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(() => room?.close());

describe('reviewing a handoff with a workspace', () => {
  it('shows the change, its failed test and what was left uncommitted; Approve and merge puts it on main', { timeout: 120_000 }, async () => {
    const { page } = room;
    const repo = makeRepo('parser repo');
    const h = await begin(repo, 'Trim the fields the parser returns');
    const folder = h.workspace?.path ?? '';
    fs.writeFileSync(path.join(folder, 'src', 'parser.ts'), ['export function parse(text: string): string[] {', "  return text.split(',').map((field) => field.trim());", '}', ''].join('\n'));
    fs.writeFileSync(path.join(folder, 'src', 'parser.test.ts'), ["import { parse } from './parser';", '', "test('trims', () => expect(parse(' a, b ')).toEqual(['a', 'b']));", ''].join('\n'));
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', 'Trim parsed fields');
    fs.writeFileSync(path.join(folder, 'scratch.md'), 'notes\n');
    const { graphId } = await callTool<{ graphId: string }>(dev, 'tasks_run', {
      name: 'checks',
      handoffId: h.id,
      stages: [
        { id: 'unit', command: 'test -f src/parser.test.ts' },
        { id: 'lint', command: "echo 'src/parser.ts:2 line too long (83 > 80)' >&2; exit 1" },
      ],
    });
    await callTool(dev, 'tasks_status', { graphId, stages: false, until: 'ended', waitMs: 20_000 });
    await callTool(dev, 'handoff_complete', { handoffId: h.id, result: 'Fields are trimmed; a test covers it. **lint** fails on line length.' });

    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${h.id}"]`).click();
    const review = page.getByRole('region', { name: 'Change' });
    await expect.poll(() => review.getByTestId('change-summary').innerText()).toBe('2 files +4 −1 · 1 commit');
    await expect.poll(() => review.getByTestId('diff-file').count()).toBe(2);
    expect(await review.getByRole('navigation', { name: 'Files changed' }).innerText()).toMatch(/src\/[\s\S]*A\s+parser\.test\.ts\s+\+3 −0[\s\S]*M\s+parser\.ts\s+\+1 −1/);
    // the diff, as git made it, drawn by the diff view (its new line present, highlighted as TypeScript)
    const parser = review.locator('[data-testid="diff-file"][data-path="src/parser.ts"]');
    await expect.poll(() => parser.innerText()).toContain("map((field) => field.trim())");
    expect(await parser.locator('.hljs-keyword, [class*="hljs"]').count()).toBeGreaterThan(0);
    expect(await review.getByTestId('uncommitted').innerText()).toContain('scratch.md');
    // one click to the failed stage's log
    await review.getByTestId('failed-stage').click();
    await expect.poll(() => review.getByTestId('failed-stage-log').innerText()).toContain('line too long');
    await page.screenshot({ path: path.join(SHOTS, 'inbox-review-small.png'), fullPage: true });
    await review.getByRole('button', { name: 'Split' }).click();
    await expect.poll(() => parser.locator('table, [data-component]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'inbox-review-split.png'), fullPage: true });
    // keyboard: n goes to the next file
    await page.locator('.inbox-detail h2').click();
    await page.keyboard.press('n');

    // approve and merge (offered, and on by default, since the branch has a commit and main is a branch): the
    // reviewed commit, shown by its id
    const head = git(folder, 'rev-parse', 'HEAD');
    expect(await page.getByTestId('merge-choice').isChecked()).toBe(true);
    expect((await page.locator('.merge-choice').innerText()).replace(/\s+/g, ' ')).toMatch(new RegExp(`Merge ${head.slice(0, 7)} into main`));
    await page.getByRole('button', { name: `Approve and merge ${head.slice(0, 7)}` }).click();
    // after the approval's undo window (pending-decision.tsx)
    await expect.poll(async () => (await callTool<H>(lead, 'handoff_get', { handoffId: h.id })).handoff.status, { timeout: 20_000 }).toBe('approved');
    expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Trim parsed fields');
    expect(fs.readFileSync(path.join(repo, 'src', 'parser.ts'), 'utf8')).toContain('field.trim()');
    expect(pageErrors).toEqual([]);
  });

  it('a commit added after completion is refused with a re-capture button; re-captured, the new commit is shown and merged', { timeout: 120_000 }, async () => {
    const { page } = room;
    const repo = makeRepo('moved repo');
    const h = await begin(repo, 'Fix the readme');
    const folder = h.workspace?.path ?? '';
    fs.writeFileSync(path.join(folder, 'README.md'), '# parser, fixed\n');
    git(folder, 'commit', '-q', '-am', 'Fix the readme');
    const reviewed = git(folder, 'rev-parse', 'HEAD');
    await callTool(dev, 'handoff_complete', { handoffId: h.id, result: 'Fixed.' });
    fs.writeFileSync(path.join(folder, 'install.sh'), 'echo later\n');
    git(folder, 'add', 'install.sh');
    git(folder, 'commit', '-q', '-m', 'Add an installer after the review');
    const later = git(folder, 'rev-parse', 'HEAD');

    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${h.id}"]`).click();
    const review = page.getByRole('region', { name: 'Change' });
    await expect.poll(() => review.getByTestId('change-summary').innerText()).toBe('1 file +1 −1 · 1 commit');
    await page.getByRole('button', { name: `Approve and merge ${reviewed.slice(0, 7)}` }).click();
    // after the undo window the room refuses; the word on it offers to re-capture
    const refusal = page.locator('[data-testid="decision-toast"][data-phase="failed"]');
    await expect.poll(() => refusal.innerText(), { timeout: 20_000 }).toMatch(new RegExp(`moved after the work was completed: the review showed ${reviewed.slice(0, 7)}, the branch is now at ${later.slice(0, 7)}`));
    expect(git(repo, 'rev-parse', 'main')).not.toBe(later);
    await page.screenshot({ path: path.join(SHOTS, 'inbox-review-moved.png'), fullPage: true });
    await refusal.getByTestId('recapture').click();
    await expect.poll(() => page.getByTestId('decision-toast').innerText()).toMatch(/Re-captured .*review its new evidence/);
    await page.locator(`.inbox-item[data-handoff-id="${h.id}"]`).click();
    await expect.poll(() => review.getByTestId('change-summary').innerText()).toBe('2 files +2 −1 · 2 commits');
    await page.getByRole('button', { name: `Approve and merge ${later.slice(0, 7)}` }).click();
    await expect.poll(async () => (await callTool<H>(lead, 'handoff_get', { handoffId: h.id })).handoff.status, { timeout: 20_000 }).toBe('approved');
    expect(git(repo, 'rev-parse', 'main')).toBe(later);
    expect(pageErrors).toEqual([]);
  });

  it('a large change (5,000 lines over 40 files) starts collapsed and opens a file from the list', { timeout: 120_000 }, async () => {
    const { page } = room;
    const repo = makeRepo('large repo');
    const h = await begin(repo, 'Generate the tables');
    const folder = h.workspace?.path ?? '';
    fs.mkdirSync(path.join(folder, 'tables'));
    for (let f = 0; f < 40; f++) {
      const lines = Array.from({ length: 125 }, (_, i) => `export const t${f}_${i} = ${i * f}; // row ${i} of table ${f}`);
      fs.writeFileSync(path.join(folder, 'tables', `table-${String(f).padStart(2, '0')}.ts`), `${lines.join('\n')}\n`);
    }
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', 'Generate 40 tables');
    await callTool(dev, 'handoff_complete', { handoffId: h.id, result: 'Generated.' });
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${h.id}"]`).click();
    const review = page.getByRole('region', { name: 'Change' });
    await expect.poll(() => review.getByTestId('change-summary').innerText()).toBe('40 files +5000 −0 · 1 commit');
    await expect.poll(() => review.getByTestId('diff-file').count()).toBe(40);
    expect(await review.locator('.diff-file-toggle[aria-expanded="true"]').count()).toBe(0);
    await review.getByRole('navigation', { name: 'Files changed' }).getByText('table-07.ts').click();
    const opened = review.locator('[data-testid="diff-file"][data-path="tables/table-07.ts"]');
    await expect.poll(() => opened.innerText()).toContain('row 124 of table 7');
    await page.screenshot({ path: path.join(SHOTS, 'inbox-review-large.png') });

    // rejected: a follow-up goes on in the same worktree, and its review says from what and why
    await room.runner.engine.call(room.runner.engine.operator(), 'handoff_reject', { handoffId: h.id, reason: 'split the tables by size' });
    const { handoff: next } = await callTool<H>(lead, 'handoff_create', { summary: 'Split the tables', to: 'dev', continues: h.id });
    await callTool(dev, 'handoff_accept', { handoffId: next.id });
    await callTool(dev, 'handoff_complete', { handoffId: next.id, result: 'Split.' });
    await page.getByRole('button', { name: /Graphs/ }).click();
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${next.id}"]`).click();
    await expect.poll(() => page.getByTestId('workspace-continues').innerText()).toBe(`· goes on from ${h.id}, rejected: split the tables by size`);
    expect(pageErrors).toEqual([]);
  });
});
