/**
 * Issue 45's whole flow, in one walk through real Chromium against a real room and a real git repository, as a
 * person does it: New task starts a scripted stand-in for a client in a worktree of its own; it commits there and
 * waits at its prompt; "ready for review?" — the person completes it for the agent (its terminal ends with its
 * work); meanwhile main changed the same line, and the review says so before anyone approves; the person comments
 * on a line and requests changes; the agent is not running, so Follow up starts it again in the same worktree and
 * the comment is on its terminal's first screen; it merges main and commits again; "ready for review?" once more,
 * and its review opens on what changed since the last one; approved and merged, History shows the merge. A
 * screenshot of each step (1440×900 and 390×844; the review at 1024×768 too) goes to /work/shots/wt-taskflow/
 * (or $COMMONROOM_SHOTS). Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_IDENTITY, git, makeRepo } from '../helpers/git-repo';
import { notesOf, recordNotifications } from './helpers/notifications';
import { terminalText } from './helpers/page-terminal';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
const pageErrors: string[] = [];
const SHOTS = process.env.COMMONROOM_SHOTS ?? '/work/shots/wt-taskflow';

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: [], prepare: (context) => recordNotifications(context) });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(() => room?.close());

/**
 * The step's screen, saved as `walk-<n>-<name>-<width>.png` at a laptop's and a phone's size (and 1024×768 with
 * `tablet`); with `dark`, at 1440 in the dark scheme too (`…-1440-dark.png`).
 */
async function shot(page: Page, name: string, options: { tablet?: boolean; dark?: boolean } = {}): Promise<void> {
  const sizes: [number, number][] = options.tablet ? [[1440, 900], [1024, 768], [390, 844]] : [[1440, 900], [390, 844]];
  for (const [width, height] of sizes) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(150); // a layout pass after the resize
    await page.screenshot({ path: path.join(SHOTS, `walk-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  if (options.dark) {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `walk-${name}-1440-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

/** The parser: eight lines of header, then the function whose one line the agent and main both change. */
const HEADER = Array.from({ length: 8 }, (_, i) => `// parser header line ${i + 1}`);
const parser = (body: string) => [...HEADER, 'export function parse(text: string): string[] {', `  return ${body};`, '}', ''].join('\n');
const TRIMMED = parser("text.split(',').map((field) => field.trim())");
const FINAL = parser("text.split(/[,;]/).map((field) => field.trim()).filter((f) => f !== '')");

/**
 * The scripted stand-in for a client: shows where it is and its first prompt (the task, or on a follow-up the
 * person's comments with it), does the work (trims the fields; on the follow-up merges main and drops empty
 * fields), commits, and waits at its prompt.
 */
function standIn(file: string): string {
  const identity = Object.entries(GIT_IDENTITY).map(([k, v]) => `export ${k}='${v}'`);
  const write = (text: string) => `cat > src/parser.ts <<'PARSER'\n${text}PARSER`;
  fs.writeFileSync(
    file,
    [
      '#!/bin/sh',
      ...identity,
      'echo "pwd: $(pwd)"',
      'printf "task: %s\\n" "$COMMONROOM_TASK"',
      'case "$COMMONROOM_TASK" in',
      '*"comments on lines"*)',
      `git merge -q -X ours -m "Merge main" main && ${write(FINAL)}`,
      'git commit -qam "Drop empty fields" && echo "committed: Drop empty fields" ;;',
      '*)',
      write(TRIMMED),
      'git commit -qam "Trim parsed fields" && echo "committed: Trim parsed fields" ;;',
      'esac',
      'printf "> "',
      'exec sleep 600',
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  return file;
}

describe('a task, from the New task form to its merge, in one walk', () => {
  it('New task → its terminal → its commit → ready for review? → a conflict shown before approving → a line comment and Request changes → the comment in its terminal → changed since last review → approve and merge → History', { timeout: 300_000 }, async () => {
    const { runner, page } = room;
    const engine = runner.engine;
    const op = () => engine.operator();
    await page.setViewportSize({ width: 1440, height: 900 });
    const repo = makeRepo(path.join(room.home.root, 'parser app'), { 'src/parser.ts': parser("text.split(',')"), 'README.md': '# parser\n' });
    const script = standIn(path.join(room.home.root, 'stand-in.sh'));

    // 1. New task, from the room's first screen (nothing added yet): the task, the repository, the client
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.getByTestId('first-run').waitFor();
    await shot(page, '0-first-screen', { dark: true });
    await page.getByTestId('first-run-task').click();
    const form = page.getByRole('dialog', { name: 'New task' });
    await form.getByLabel('Task').fill('Trim the fields the parser returns');
    await form.getByLabel('Repository').fill(repo);
    await form.getByLabel('Client').selectOption('command');
    await form.getByLabel('Command').fill(script);
    await shot(page, '1-new-task');
    await form.getByTestId('start-task').click();
    await form.waitFor({ state: 'detached' });

    // 2. its terminal, selected: in its own worktree, the task on its first screen, its commit made there
    const first = (await engine.call(op(), 'agent_list', {})).agents[0];
    const handoffId = first?.handoffId as string;
    expect(handoffId).toMatch(/^hf_/);
    expect((await engine.call(op(), 'handoff_get', { handoffId })).handoff).toMatchObject({ owner: 'operator', to: first?.participant, status: 'accepted' });
    await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id')).toBe(first?.shellId);
    await expect.poll(() => terminalText(page, first?.shellId ?? ''), { timeout: 20_000 }).toContain('committed: Trim parsed fields');
    const screen = (await terminalText(page, first?.shellId ?? '')).replace(/\s+/g, ' ');
    expect(screen).toContain(`pwd: ${first?.cwd}`);
    expect(screen).toContain('task: Trim the fields the parser returns');
    const tree = first?.cwd as string;
    expect(git(tree, 'log', '-1', '--format=%s')).toBe('Trim parsed fields');
    // meanwhile the person's main changes the same line
    fs.writeFileSync(path.join(repo, 'src/parser.ts'), parser('text.split(/[,;]/)'));
    git(repo, 'commit', '-qam', 'Split on semicolons too');
    await shot(page, '2-agent-terminal');

    // 3. idle at its prompt with a commit: ready for review? (a notification too); the person completes it for the agent
    const ready = page.getByTestId('ready-for-review');
    await ready.waitFor({ timeout: 30_000 });
    expect(await ready.innerText()).toMatch(/waits at its prompt with 1 new commit in its worktree\. Ready for review\?/);
    await expect.poll(() => notesOf(page)).toContainEqual(expect.stringMatching(/ready for review\?/));
    await ready.getByTestId('ready-open').click();
    await ready.getByLabel('Summary').fill('Fields are trimmed.');
    await shot(page, '3-ready-for-review');
    await ready.getByTestId('complete-for-agent').click();
    await ready.waitFor({ state: 'detached' });
    await expect.poll(async () => (await engine.call(op(), 'handoff_get', { handoffId })).handoff.status, { timeout: 20_000 }).toBe('result_ready');

    // 4. the review says it conflicts with main before anyone approves; Approve and merge is not the primary action
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${handoffId}"]`).click();
    const bar = page.getByRole('group', { name: 'Decision' });
    await expect.poll(() => bar.getByTestId('preview-merge').innerText(), { timeout: 20_000 }).toBe('main moved 1 commit since; conflicts in src/parser.ts');
    expect(await bar.getByTestId('approve').getAttribute('class')).not.toContain('primary');
    await shot(page, '4-review-conflict', { tablet: true });

    // 5. a comment on the changed line, and Request changes with a reason
    const row = page.locator('.diff-file[data-path="src/parser.ts"] tr', { hasText: 'field.trim()' }).first();
    await row.hover();
    await row.locator('.diff-add-widget').first().click();
    await page.locator('#line-comment-text').fill('Keep empty fields out too: filter((f) => f !== "")');
    await page.getByTestId('save-line-comment').click();
    await page.getByTestId('line-comments').getByText('Keep empty fields out too').waitFor();
    await page.locator('#reject-reason').fill('Merge main in and drop empty fields');
    await page.locator('.line-comments').scrollIntoViewIfNeeded();
    await shot(page, '5-line-comment');
    await bar.getByRole('button', { name: 'Request changes (1)' }).click();
    await expect.poll(async () => (await engine.call(op(), 'handoff_get', { handoffId })).handoff.status, { timeout: 20_000 }).toBe('rejected');
    // its terminal ended with its work: the room says so, and where it is started again
    await expect.poll(() => page.getByTestId('decision-toast').innerText(), { timeout: 15_000 }).toMatch(/Its agent, agent, is not running: Follow up on it in History starts it again/);
    await shot(page, '6-changes-requested', { dark: true });

    // 6. Follow up (History): the agent starts again in the same worktree, the comment on its terminal's first screen
    await page.getByRole('button', { name: 'History' }).click();
    await page.locator(`.history-item[data-handoff-id="${handoffId}"]`).click();
    await page.getByTestId('follow-up').click();
    await page.getByLabel('What to do next').fill('Merge main in, and drop empty fields as commented');
    await page.getByTestId('follow-up-send').click();
    await expect.poll(() => page.getByTestId('follow-up-done').innerText(), { timeout: 20_000 }).toMatch(/goes on in .* in terminal/);
    const second = (await engine.call(op(), 'agent_list', {})).agents.find((a) => a.participant === first?.participant);
    expect(second).toMatchObject({ cwd: tree });
    const followUp = second?.handoffId as string;
    expect(followUp).not.toBe(handoffId);
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.locator(`.shell-item[data-shell-id="${second?.shellId}"]`).click();
    await expect.poll(async () => (await terminalText(page, second?.shellId ?? '')).replace(/\s+/g, ' '), { timeout: 20_000 }).toContain('src/parser.ts:10 Keep empty fields out too');
    await expect.poll(() => terminalText(page, second?.shellId ?? ''), { timeout: 20_000 }).toContain('committed: Drop empty fields');
    await shot(page, '7-comment-in-agent-terminal');

    // 7. ready for review? again: completed for it, its review opens on what changed since the last one, and merges cleanly
    const again = page.getByTestId('ready-for-review');
    await again.waitFor({ timeout: 30_000 });
    await again.getByTestId('ready-open').click();
    await again.getByLabel('Summary').fill('Merged main; empty fields are dropped.');
    await again.getByTestId('complete-for-agent').click();
    await expect.poll(async () => (await engine.call(op(), 'handoff_get', { handoffId: followUp })).handoff.status, { timeout: 20_000 }).toBe('result_ready');
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${followUp}"]`).click();
    await expect.poll(() => page.getByTestId('since-review').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('since-note').innerText()).toMatch(/^Changed since last review: [0-9a-f]{7} \(reviewed when it was sent back\) → [0-9a-f]{7} \(now\)/);
    await expect.poll(() => page.locator('.diff-file[data-path="src/parser.ts"]').innerText()).toContain("filter((f) => f !== '')");
    await expect.poll(() => bar.getByTestId('preview-merge').innerText(), { timeout: 20_000 }).toBe('main has not moved; merges as a fast-forward');
    // no check ran in the workspace (the stand-in runs none): said beside the decision, which stays held back
    expect(await bar.getByTestId('preview-checks').innerText()).toMatch(/no checks ran/);
    await shot(page, '8-changed-since-last-review', { tablet: true });

    // 8. approve and merge; History shows the merge, by commit, and keeps the change
    await bar.getByRole('button', { name: /Approve and merge/ }).click();
    await expect.poll(async () => (await engine.call(op(), 'handoff_get', { handoffId: followUp })).handoff.workspace?.state, { timeout: 20_000 }).toBe('merged');
    const main = git(repo, 'rev-parse', 'main');
    expect(git(repo, 'show', 'main:src/parser.ts')).toBe(FINAL.trimEnd());
    await page.getByRole('button', { name: 'History' }).click();
    await page.locator(`.history-item[data-handoff-id="${followUp}"]`).click();
    await expect.poll(() => page.getByTestId('history-merge').innerText(), { timeout: 15_000 }).toContain(`merged into main at ${main.slice(0, 7)}, fast-forward`);
    await page.getByTestId('history-change').locator('summary').first().click();
    expect(await page.locator('.kept-patch').innerText()).toContain("filter((f) => f !== '')");
    expect(fs.existsSync(tree), 'the worktree is removed once merged').toBe(false);
    await shot(page, '9-history-merged');
    expect(pageErrors).toEqual([]);
  });
});
