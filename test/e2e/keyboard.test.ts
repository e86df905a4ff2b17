/**
 * The core tasks with the keyboard alone, in real Chromium against a real room (issue 35, item 1), agents played
 * by real MCP SDK clients: nothing is clicked. The terminal does not take focus on load, and F6 leaves it (Tab
 * and Esc are the shell's); who needs me (the inbox's count, said on its button); approve (a, with its undo
 * window); reject with a reason (r, the reason, Tab, Enter); answer a question (its form's fields, Enter);
 * take over a shell's size (Fit to panel); add an agent. Every stop shows a focus ring. Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import type { RunningRoom } from '../../src-main/server/runner';
import { focused, isFocused, tabTo } from './helpers/keyboard';
import { terminalSize, terminalText, waitFor } from './helpers/page-terminal';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let asker: Client;
let worker: Client;
let page: Page;
const pageErrors: string[] = [];

const get = async (id: string) => (await callTool<{ handoff: HandoffView }>(asker, 'handoff_get', { handoffId: id })).handoff;

async function resultReady(summary: string): Promise<HandoffView> {
  const { handoff } = await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary, to: 'worker' });
  await callTool(worker, 'handoff_accept', { handoffId: handoff.id });
  await callTool(worker, 'handoff_complete', { handoffId: handoff.id, result: `## ${summary}\n\nDone.` });
  return handoff;
}

const focusedText = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText ?? '');
const inBar = () => page.evaluate(() => Boolean(document.activeElement?.closest('.sidebar')));

/** From wherever focus is, to the screens bar (F6) and along it (Tab, else Shift+Tab) to `name`, then Enter. */
async function goTo(name: string): Promise<void> {
  for (const key of ['Tab', 'Shift+Tab']) {
    // F6 leaves the terminal for its list, and from the screen goes to the screens bar (its current screen)
    for (let i = 0; i < 3 && !(await inBar()); i++) await page.keyboard.press('F6');
    for (let i = 0; i < 5 && (await inBar()) && !(await focusedText()).includes(name); i++) await page.keyboard.press(key);
    if ((await inBar()) && (await focusedText()).includes(name)) break;
  }
  expect(await focusedText()).toContain(name);
  expect((await focused(page))?.ring, `focus ring on ${name}`).toBe(true);
  await page.keyboard.press('Enter');
  await page.locator('.nav-item.active', { hasText: name }).waitFor();
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['asker', 'worker'] });
  ({ runner, page } = room);
  [asker, worker] = room.agents as [Client, Client];
}, 60_000);

afterAll(() => room?.close());

describe('keyboard only', () => {
  let shellId: string;

  it('the terminal does not take focus on load; Tab and Esc reach the shell, F6 and Shift+F6 leave it', async () => {
    shellId = (await callTool<{ shell: { id: string } }>(worker, 'shell_open', { name: 'agent-top', shell: '/bin/bash', args: ['--norc', '--noprofile'], env: { PS1: 'P> ' }, cols: 100, rows: 30 })).shell.id;
    await page.locator(`.shell-item[data-shell-id="${shellId}"]`).waitFor();
    await page.reload();
    await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    await goTo('Terminals');
    await tabTo(page, `.shell-item[data-shell-id="${shellId}"]`);
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="terminal"][data-shell-id="${shellId}"]`).waitFor();
    expect(await isFocused(page, '.xterm-helper-textarea')).toBe(false);
    expect(await page.getByTestId('terminal-hint').innerText()).toContain('F6 leaves it');
    // into the terminal with Tab: the hint says typing goes to the shell, and how to leave
    const into = await tabTo(page, '.xterm-helper-textarea');
    expect(into.ring).toBe(true);
    await page.getByTestId('terminal-hint').filter({ hasText: 'F6 leaves the terminal' }).waitFor();
    await page.keyboard.type('echo one');
    await page.keyboard.press('Enter');
    await expect.poll(() => terminalText(page, shellId)).toMatch(/^one\s*$/m);
    await page.keyboard.press('Tab'); // typed into the shell (completion), not a way out
    await page.keyboard.press('Escape'); // vim's key: the shell's too
    expect(await isFocused(page, '.xterm-helper-textarea')).toBe(true);
    await page.keyboard.press('F6');
    expect(await isFocused(page, `.shell-item[data-shell-id="${shellId}"]`)).toBe(true);
    await tabTo(page, '.xterm-helper-textarea');
    await page.keyboard.press('Shift+F6');
    expect(await isFocused(page, '.shell-actions button')).toBe(true);
  });

  const waitForSize = () => waitFor(async () => {
    const size = await terminalSize(page, shellId);
    return size && (size.cols !== 100 || size.rows !== 30) ? size : null;
  });

  it('takes over a shell\'s size with Fit to panel', async () => {
    expect(await page.getByTestId('shell-size').innerText()).toContain('100×30');
    // Shift+F6 left focus on the panel's first button: Fit to panel is a few Tabs on
    const ring = await tabTo(page, '[data-testid="take-over-size"]', { limit: 6 });
    expect(ring.ring).toBe(true);
    await page.keyboard.press('Enter');
    // the page's terminal, the PTY and the header all say the panel's size now
    const size = await waitForSize();
    expect(size).not.toEqual({ cols: 100, rows: 30 });
    await expect.poll(() => page.getByTestId('shell-size').innerText(), { timeout: 10_000 }).toBe(`size ${size.cols}×${size.rows}`);
    const listed = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.id === shellId);
    expect([listed?.cols, listed?.rows]).toEqual([size.cols, size.rows]);
    expect(await page.getByTestId('take-over-size').count()).toBe(0);
  });

  it('who needs me: the inbox button says how many wait, and approve with a', async () => {
    const first = await resultReady('Ship the docs');
    await page.getByTestId('inbox-badge').filter({ hasText: '1' }).waitFor();
    await goTo('Inbox');
    expect((await focused(page))?.text).toMatch(/Inbox\s*1/);
    expect(await page.getByTestId('inbox-badge').getAttribute('aria-label')).toBe('1 waiting');
    await page.locator(`.handoff-detail[data-handoff-id="${first.id}"]`).waitFor();
    await page.keyboard.press('a');
    await page.getByTestId('decision-toast').filter({ hasText: 'Approving “Ship the docs” in 5 seconds' }).waitFor();
    await expect.poll(async () => (await get(first.id)).status, { timeout: 20_000 }).toBe('approved');
    await page.getByTestId('decision-toast').filter({ hasText: 'Approved “Ship the docs”.' }).waitFor();
  });

  it('rejects with a reason: r, the reason, Tab to Reject, Enter', async () => {
    const h = await resultReady('Rename the package');
    await page.locator(`.handoff-detail[data-handoff-id="${h.id}"]`).waitFor();
    await page.keyboard.press('r');
    expect(await isFocused(page, '#reject-reason')).toBe(true);
    await page.keyboard.type('The name is taken on npm: pick another');
    await page.keyboard.press('Tab');
    expect((await focused(page))?.text).toContain('Reject');
    expect((await focused(page))?.ring).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByTestId('decision-toast').filter({ hasText: 'Rejecting “Rename the package”' }).waitFor();
    await expect.poll(async () => (await get(h.id)).status, { timeout: 20_000 }).toBe('rejected');
    expect((await get(h.id)).decision?.reason).toBe('The name is taken on npm: pick another');
  });

  it('answers a question: a choice that starts unchosen, a number, Enter', async () => {
    const { handoff } = await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Deploy where?', to: 'worker' });
    await callTool(worker, 'handoff_accept', { handoffId: handoff.id });
    await callTool(worker, 'handoff_request_input', {
      handoffId: handoff.id,
      requests: { deploy: { message: 'Where, and how many replicas?', requestedSchema: { type: 'object', properties: { target: { type: 'string', title: 'Target', enum: ['staging', 'production'] }, replicas: { type: 'integer', title: 'Replicas', minimum: 2 } }, required: ['target', 'replicas'] } } },
    });
    const form = page.locator('form[data-request-key="deploy"]');
    await form.waitFor();
    expect(await tabTo(page, 'form[data-request-key="deploy"] select')).toEqual({ ring: true });
    expect(await form.locator('select').inputValue()).toBe('');
    await page.keyboard.press('ArrowDown');
    expect(await form.locator('select').inputValue()).toBe('staging');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    // refused in the form, focus on the field to put right
    await form.getByRole('alert').filter({ hasText: '“Replicas” must be at least 2 (got 1)' }).waitFor();
    expect(await isFocused(page, 'form[data-request-key="deploy"] input[type="number"]')).toBe(true);
    await page.keyboard.press('Backspace');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await get(handoff.id)).inputAnswers.deploy?.content).toEqual({ target: 'staging', replicas: 3 });
    await page.getByTestId('decision-toast').filter({ hasText: 'Answer sent to worker: “Deploy where?”.' }).waitFor();
  });

  it('adds an agent and is shown its token', async () => {
    await goTo('Agents');
    await tabTo(page, '#agent-name');
    await page.keyboard.type('keyboard-agent');
    await tabTo(page, 'form.add-form button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-token').waitFor();
    expect((await runner.engine.call(runner.engine.operator(), 'participant_list', {})).participants.map((p) => p.name)).toContain('keyboard-agent');
    expect(pageErrors).toEqual([]);
  });
});
