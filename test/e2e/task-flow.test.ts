/**
 * One flow from a task to a merged change, as the person sees it in real Chromium (issue 45): New task starts an
 * agent in a worktree of its own; a scripted stand-in for the client commits there and waits at its prompt; the
 * Terminals screen (and one notification) asks "ready for review?", and the person completes it for the agent;
 * approved and merged, History shows the merge and keeps the change. Then the person hands work to an agent
 * from the Inbox, and follows a rejected one up in the same worktree. Screenshots go to /work/shots/wt-taskflow.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { GIT_IDENTITY, git, makeRepo } from '../helpers/git-repo';
import { notesOf, recordNotifications } from './helpers/notifications';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
const pageErrors: string[] = [];
const SHOTS = process.env.COMMONROOM_SHOTS ?? path.join('/work/shots/wt-taskflow');

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['dev'], prepare: (context) => recordNotifications(context) });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(() => room?.close());

/** The same screen at the three widths the app is made for. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [w, h] of [
    [1440, 900],
    [1024, 768],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${w}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('from a task to a merged change, in the UI', () => {
  it('New task → its terminal in its worktree → "ready for review?" → completed for it → merged → History shows the merge', { timeout: 120_000 }, async () => {
    const { runner, page } = room;
    await page.setViewportSize({ width: 1440, height: 900 });
    // a repository of the person's, outside Commonroom's data folder (agents cannot write there)
    const top = room.home.root;
    const repo = makeRepo(path.join(top, 'app'), { 'README.md': '# app\n' });
    const script = path.join(top, 'stand-in.sh');
    // the scripted stand-in for a client: shows where it is and its task, commits a file, waits at its prompt
    const identity = Object.entries(GIT_IDENTITY).map(([k, v]) => `export ${k}='${v}'`);
    fs.writeFileSync(script, ['#!/bin/sh', ...identity, 'echo "pwd: $(pwd)"', 'printf "task: %s\\n" "$COMMONROOM_TASK" | head -1', 'echo hello > hello.txt && git add hello.txt && git commit -q -m "Say hello" && echo "committed: Say hello"', 'printf "> "', 'exec sleep 600'].join('\n'), { mode: 0o755 });

    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.getByTestId('new-task').click();
    const form = page.getByRole('dialog', { name: 'New task' });
    await form.getByLabel('Task').fill('Add a hello file');
    await form.getByLabel('Repository').fill(repo);
    await form.getByLabel('Client').selectOption('command');
    await form.getByLabel('Command').fill(script);
    // a ceiling that is not an amount is refused in the form, saying what it takes; nothing starts
    await form.getByLabel('Cost ceiling, US$').fill('-1');
    await form.getByTestId('start-task').click();
    await expect.poll(() => form.innerText()).toContain('the cost ceiling is an amount in US dollars above 0');
    expect((await runner.engine.call(runner.engine.operator(), 'agent_list', {})).agents).toEqual([]);
    await form.getByLabel('Cost ceiling, US$').fill('2.5');
    await form.getByLabel('Time limit, hours').fill('8');
    await shots(page, 'new-task-form');
    await form.getByTestId('start-task').click();
    await form.waitFor({ state: 'detached' });

    // its terminal opens selected, in its worktree, with the task on its first screen
    const agent = (await runner.engine.call(runner.engine.operator(), 'agent_list', {})).agents[0];
    expect(agent?.handoffId).toMatch(/^hf_/);
    const handoffId = agent?.handoffId as string;
    // the run has its envelope from its start
    const { envelopes } = await runner.engine.call(runner.engine.operator(), 'spend_report', {});
    expect(envelopes.filter((e) => e.target === agent?.shellId)).toEqual([expect.objectContaining({ scope: 'agent', maxCostMicroUsd: 2_500_000, maxWallMs: 8 * 3_600_000, state: 'active' })]);
    await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id')).toBe(agent?.shellId);
    await expect.poll(() => page.locator('.terminal-host').innerText(), { timeout: 20_000 }).toContain('committed: Say hello');
    expect(await page.locator('.terminal-host').innerText()).toContain(`pwd: ${agent?.cwd}`);
    expect(await page.locator('.terminal-host').innerText()).toContain('task: Add a hello file');

    // idle at its prompt with a commit: ready for review?, once as a notification
    const ready = page.getByTestId('ready-for-review');
    await ready.waitFor({ timeout: 30_000 });
    expect(await ready.innerText()).toMatch(/waits at its prompt with 1 new commit in its worktree\. Ready for review\?/);
    await expect.poll(() => notesOf(page)).toContainEqual(expect.stringMatching(/ready for review\?: It waits at its prompt with 1 new commit/));
    await shots(page, 'ready-for-review');
    await ready.getByTestId('ready-open').click();
    await ready.getByLabel('Summary').fill('Added hello.txt');
    await ready.getByTestId('complete-for-agent').click();
    // the card goes as the agent's terminal ends (completing ends its work there), before the answer comes back
    await ready.waitFor({ state: 'detached' });
    const status = async () => (await runner.engine.call(runner.engine.operator(), 'handoff_get', { handoffId })).handoff;
    await expect.poll(async () => (await status()).status, { timeout: 20_000 }).toBe('result_ready');
    const done = await status();
    expect(done.result?.text).toBe('Added hello.txt');

    // (the review itself is the Inbox's) approved and merged: History shows the merge and keeps the change
    const { merged } = await runner.engine.call(runner.engine.operator(), 'handoff_approve', { handoffId, merge: true, commit: done.workspace?.evidence?.head });
    expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Say hello');
    await page.getByRole('button', { name: 'History' }).click();
    await page.locator(`.history-item[data-handoff-id="${handoffId}"]`).click();
    const line = page.getByTestId('history-merge');
    await expect.poll(() => line.innerText()).toContain(`merged into main at ${merged?.commit.slice(0, 7)}, fast-forward`);
    await page.getByTestId('history-change').locator('summary').first().click();
    expect(await page.locator('.kept-patch').innerText()).toContain('+hello');
    expect(fs.existsSync(agent?.cwd as string)).toBe(false);
    await shots(page, 'history-merged');
    expect(pageErrors).toEqual([]);
  });

  it('the person hands work to an agent from the Inbox, and follows a rejected one up in the same worktree', { timeout: 90_000 }, async () => {
    const { runner, page, agents } = room;
    const dev = agents[0];
    if (!dev) throw new Error('the room connects dev');
    await page.setViewportSize({ width: 1440, height: 900 });
    const repo = makeRepo(path.join(room.home.root, 'site'), { 'index.html': '<h1>site</h1>\n' });
    await page.getByRole('button', { name: 'Inbox' }).click();
    await page.getByTestId('new-handoff').click();
    const form = page.getByRole('dialog', { name: 'New handoff' });
    await form.getByLabel('To', { exact: true }).selectOption('dev');
    await form.getByLabel('Summary').fill('Give the site a title');
    await form.getByLabel('Repository (optional)').fill(repo);
    await shots(page, 'new-handoff-form');
    await form.getByTestId('create-handoff').click();
    await expect.poll(() => page.getByTestId('handoff-created').innerText()).toMatch(/is addressed to dev; its worktree is made in/);

    // dev takes it on, commits in its worktree, completes; the person rejects it with a reason
    const [created] = (await callTool<{ handoffs: HandoffView[] }>(dev, 'handoff_list', {})).handoffs.filter((h) => h.summary === 'Give the site a title');
    const id = created?.id as string;
    const accepted = (await callTool<{ handoff: HandoffView }>(dev, 'handoff_accept', { handoffId: id })).handoff;
    const folder = accepted.workspace?.path as string;
    git(folder, 'commit', '-q', '--allow-empty', '-m', 'A title');
    await callTool(dev, 'handoff_complete', { handoffId: id, result: 'Titled' });
    await runner.engine.call(runner.engine.operator(), 'handoff_reject', { handoffId: id, reason: 'the title should say Commonroom' });

    await page.getByRole('button', { name: 'History' }).click();
    await page.locator(`.history-item[data-handoff-id="${id}"]`).click();
    await page.getByTestId('follow-up').click();
    await page.getByLabel('What to do next').fill('Say Commonroom in the title');
    await shots(page, 'history-follow-up');
    await page.getByTestId('follow-up-send').click();
    await expect.poll(() => page.getByTestId('follow-up-done').innerText()).toMatch(/waits for dev to accept it, in the same worktree/);
    const next = (await callTool<{ handoffs: HandoffView[] }>(dev, 'handoff_list', {})).handoffs.find((h) => h.summary === 'Say Commonroom in the title');
    expect(next?.workspace).toMatchObject({ path: folder, continues: { handoffId: id, reason: 'the title should say Commonroom' } });
    expect(pageErrors).toEqual([]);
  });
});
