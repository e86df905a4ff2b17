/**
 * The Inbox, Agents and Activity screens in real Chromium through the runner's real door, with agents played
 * by real MCP SDK clients: a handoff between two agents asks the person for input (answered in the generated
 * form, read back by the agent), then waits for approval (the badge and a desktop notification appear;
 * rejecting without a reason is refused in the UI; approving with a note is what the agent's handoff_get
 * reads); a participant added in Agents connects with the token shown once, and stops once revoked; the
 * history shows it all, filterable. Screenshots in light and dark go to test-output/. Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import type { RunningRoom } from '../../src-main/server/runner';
import { outputFile } from './helpers/open-ui';
import { callTool, connectWithToken, startUiRoom, type UiRoom } from './helpers/ui-room';
import { notesOf, recordNotifications } from './helpers/notifications';

let room: UiRoom;
let runner: RunningRoom;
let asker: Client;
let worker: Client;
let page: Page;
const pageErrors: string[] = [];

const connectAgent = (token: string) => connectWithToken(runner, token);
const tool = callTool;

/** A handoff from asker to worker, accepted by the worker. */
async function acceptedHandoff(summary: string, extra: Record<string, unknown> = {}): Promise<HandoffView> {
  const { handoff } = await tool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary, to: 'worker', ...extra });
  await tool(worker, 'handoff_accept', { handoffId: handoff.id });
  return handoff;
}

const get = async (client: Client, id: string) => (await tool<{ handoff: HandoffView }>(client, 'handoff_get', { handoffId: id })).handoff;
const badge = () => page.getByTestId('inbox-badge');
const notes = () => notesOf(page);

beforeAll(async () => {
  room = await startUiRoom({
    pageErrors,
    agents: ['asker', 'worker'],
    async prepare(context) {
      await recordNotifications(context);
    },
  });
  ({ runner, page } = room);
  [asker, worker] = room.agents as [Client, Client];
}, 60_000);

afterAll(() => room?.close());

describe('the inbox', () => {
  let handoff: HandoffView;

  it('an input request appears with a badge and a notification, and the answer in its form reaches the agent', async () => {
    handoff = await acceptedHandoff('Pick the release colour', { constraints: 'Only colours the brand allows.', artifacts: [{ uri: 'https://example.invalid/brand.pdf', name: 'brand' }] });
    await tool(worker, 'handoff_request_input', {
      handoffId: handoff.id,
      requests: {
        choice: {
          message: 'Which colour and how many?',
          requestedSchema: {
            type: 'object',
            properties: { colour: { type: 'string', enum: ['red', 'blue'] }, count: { type: 'integer', title: 'Count', minimum: 1 }, urgent: { type: 'boolean', title: 'Urgent' } },
            required: ['colour', 'count'],
          },
        },
      },
    });
    await expect.poll(() => badge().innerText()).toBe('1');
    await expect.poll(notes).toEqual([expect.stringContaining('Pick the release colour')]);

    await page.getByRole('button', { name: /Inbox/ }).click();
    const detail = page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"]`);
    await detail.waitFor();
    expect(await detail.getByTestId('task-status').innerText()).toBe('input required');
    expect(await detail.getByTestId('handoff-status').innerText()).toBe('accepted');
    expect(await detail.innerText()).toContain('Only colours the brand allows.');
    expect(await detail.innerText()).toContain('https://example.invalid/brand.pdf');

    const form = detail.locator('form[data-request-key="choice"]');
    // a required choice starts unchosen: Enter cannot pick one the person never chose
    expect(await form.locator('select').inputValue()).toBe('');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await form.getByRole('alert').filter({ hasText: '“colour” is required' }).waitFor();
    await form.locator('select').selectOption('blue');
    // a required number left empty, then one below the schema's minimum, is refused in the form, under its field
    await form.getByRole('button', { name: 'Send answer' }).click();
    await form.getByRole('alert').filter({ hasText: 'Count' }).waitFor();
    await form.getByLabel('Count').fill('0');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await form.locator('[data-field="count"] .field-problem').filter({ hasText: '“Count” must be at least 1 (got 0)' }).waitFor();
    expect(await form.getByLabel('Count').getAttribute('aria-invalid')).toBe('true');
    expect((await get(worker, handoff.id)).task?.status).toBe('input_required');
    await form.getByLabel('Count').fill('3');
    await form.getByLabel('Urgent').check();
    await form.getByRole('button', { name: 'Send answer' }).click();

    await expect.poll(async () => (await get(worker, handoff.id)).task?.status).toBe('working');
    const answered = await get(worker, handoff.id);
    expect(answered.inputAnswers.choice).toMatchObject({ action: 'accept', content: { colour: 'blue', count: 3, urgent: true }, answeredBy: runner.engine.operator().name });
    await expect.poll(() => badge().count()).toBe(0);
  });

  it('a result waits for approval: reject without a reason is refused, approve with a note is what the agent reads', async () => {
    await tool(worker, 'handoff_complete', { handoffId: handoff.id, result: '# Blue\n\nThree **blue** banners.\n\n<script>window.__owned = 1</script>\n\n![logo](https://example.invalid/logo.png)', artifacts: [{ uri: 'git:abc123' }] });
    await expect.poll(() => badge().innerText()).toBe('1');
    await expect.poll(async () => (await notes()).length).toBe(2);
    const detail = page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"]`);
    await detail.getByTestId('result').locator('h1', { hasText: 'Blue' }).waitFor();
    expect(await detail.getByTestId('result').locator('strong').innerText()).toBe('blue');
    expect(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned)).toBeUndefined();
    expect(await detail.getByTestId('result').locator('img').count()).toBe(0);
    expect(await detail.innerText()).toContain('git:abc123');
    expect(await detail.getByTestId('handoff-status').innerText()).toBe('result ready');
    expect(await detail.getByTestId('task-status').innerText()).toBe('completed');
    expect(await detail.getByTestId('decision').innerText()).toBe('no decision yet');
    await detail.getByTestId('handoff-timeline').getByText('completed').waitFor();

    const reject = detail.getByRole('button', { name: /Reject/ });
    expect(await reject.isDisabled()).toBe(true);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('r');
    await detail.getByTestId('decision-problem').filter({ hasText: 'needs a reason' }).waitFor();
    expect((await get(asker, handoff.id)).status).toBe('result_ready');

    await detail.getByLabel('Note (optional)').fill('Ship it, thanks');
    await detail.getByRole('button', { name: /Approve/ }).click();
    // the decision waits out its undo window, said in a toast, then reaches the room
    await page.getByTestId('decision-toast').filter({ hasText: 'Approving “Pick the release colour” in 5 seconds' }).waitFor();
    await expect.poll(async () => (await get(asker, handoff.id)).status, { timeout: 20_000 }).toBe('approved');
    await page.getByTestId('decision-toast').filter({ hasText: 'Approved “Pick the release colour”.' }).waitFor();
    expect((await get(asker, handoff.id)).decision).toMatchObject({ approved: true, reason: 'Ship it, thanks' });
    await expect.poll(() => badge().count()).toBe(0);
    await page.getByText('Nothing waits on you').waitFor();
  });

  it('keyboard: j/k move between items and a approves the chosen one', async () => {
    const first = await acceptedHandoff('First result');
    await tool(worker, 'handoff_complete', { handoffId: first.id, result: 'one' });
    const second = await acceptedHandoff('Second result');
    await tool(worker, 'handoff_complete', { handoffId: second.id, result: 'two' });
    await expect.poll(() => badge().innerText()).toBe('2');
    // newest first: the second is chosen; j moves to the first, k back
    await page.locator(`.inbox-item[data-handoff-id="${second.id}"]`).click();
    await page.keyboard.press('j');
    await page.locator(`.handoff-detail[data-handoff-id="${first.id}"]`).waitFor();
    await page.keyboard.press('k');
    await page.locator(`.handoff-detail[data-handoff-id="${second.id}"]`).waitFor();
    await page.keyboard.press('a');
    // a moves on to the next item at once; u takes the approval back before it is sent
    await page.locator(`.handoff-detail[data-handoff-id="${first.id}"]`).waitFor();
    await page.getByTestId('decision-toast').filter({ hasText: 'Approving “Second result”' }).waitFor();
    await page.keyboard.press('u');
    await page.getByTestId('decision-toast').filter({ hasText: 'Undone: “Second result” was not approved and still waits for you.' }).waitFor();
    await page.locator(`.handoff-detail[data-handoff-id="${second.id}"]`).waitFor();
    expect((await get(asker, second.id)).status).toBe('result_ready');
    await page.keyboard.press('a');
    await expect.poll(async () => (await get(asker, second.id)).status, { timeout: 20_000 }).toBe('approved');
    await expect.poll(() => badge().innerText()).toBe('1');
  });
  it('a handoff addressed to the person shows as theirs and can be cancelled with a reason the owner reads', async () => {
    const { handoff: mine } = await tool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Please check the invoice', to: runner.engine.operator().name });
    const item = page.locator(`.inbox-item[data-handoff-id="${mine.id}"]`);
    await item.filter({ hasText: 'for you' }).waitFor();
    await item.click();
    await page.locator(`.handoff-detail[data-handoff-id="${mine.id}"]`).getByRole('button', { name: 'Cancel handoff' }).click();
    await page.getByTestId('confirm-dialog').getByLabel('Why? (optional, the owner reads this)').fill('not mine to check');
    await page.screenshot({ path: outputFile('inbox-cancel-dialog.png') });
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Cancel handoff' }).click();
    await expect.poll(async () => (await get(asker, mine.id)).status).toBe('cancelled');
    expect((await get(asker, mine.id)).cancellation?.reason).toBe('not mine to check');
    await expect.poll(() => item.count()).toBe(0);
  });

  it('a handoff addressed to the person can be taken on and finished with a result, which its owner reads', async () => {
    const { handoff: mine } = await tool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Sign off the release notes', to: runner.engine.operator().name });
    const item = page.locator(`.inbox-item[data-handoff-id="${mine.id}"]`);
    await item.filter({ hasText: 'for you' }).waitFor();
    await item.click();
    await page.getByTestId('accept-handoff').click();
    await item.filter({ hasText: 'yours to finish' }).waitFor();
    expect((await get(asker, mine.id)).assignee).toBe(runner.engine.operator().name);
    await page.getByLabel(/Your result/).fill('Signed off: **ship it**.');
    await page.getByRole('button', { name: 'Complete' }).click();
    await expect.poll(async () => (await get(asker, mine.id)).status).toBe('result_ready');
    expect((await get(asker, mine.id)).result?.text).toBe('Signed off: **ship it**.');
  });
});

describe('agents', () => {
  it('a participant added in Agents connects with the token shown once, and not after it is revoked', async () => {
    await page.getByRole('button', { name: 'Agents' }).click();
    expect(await page.getByTestId('mcp-url').innerText()).toBe(runner.mcpUrl.toString());
    await page.getByLabel('Name').fill('newbie');
    await page.getByRole('button', { name: 'Add and show token' }).click();
    const token = (await page.getByTestId('new-token').innerText()).trim();
    expect(token.length).toBeGreaterThan(20);
    const claude = await page.getByTestId('snippet-claude-code').innerText();
    expect(claude).toBe(`claude mcp add --transport http --scope user commonroom ${runner.mcpUrl.toString()} --header "Authorization: Bearer ${token}"`);
    await page.getByRole('tab', { name: 'Codex' }).click();
    expect(await page.getByTestId('snippet-codex').innerText()).toContain('bearer_token_env_var');

    const newbie = await connectAgent(token);
    const info = await tool<{ counts: { participants: number } }>(newbie, 'room_info', {});
    expect(info.counts.participants).toBeGreaterThanOrEqual(4);
    await newbie.close();
    await page.locator('tr[data-participant="newbie"]').waitFor();
    await page.screenshot({ path: outputFile('agents-token-light.png') });

    await page.getByRole('button', { name: 'Done, hide the token' }).click();
    expect(await page.getByTestId('new-token').count()).toBe(0);
    // a new token under the same name: shown once; the old one stops working
    await page.locator('tr[data-participant="newbie"]').getByRole('button', { name: 'New token' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Give a new token' }).click();
    const rotated = (await page.getByTestId('new-token').innerText()).trim();
    expect(rotated).not.toBe(token);
    await expect(connectAgent(token).then((c) => tool(c, 'room_info', {}))).rejects.toThrow();
    const again = await connectAgent(rotated);
    expect((await tool<{ counts: { participants: number } }>(again, 'room_info', {})).counts.participants).toBeGreaterThanOrEqual(4);
    await again.close();
    await page.getByRole('button', { name: 'Done, hide the token' }).click();
    await page.locator('tr[data-participant="newbie"]').getByRole('button', { name: 'Revoke' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr[data-participant="newbie"].revoked').waitFor();
    await expect(connectAgent(rotated).then((c) => tool(c, 'room_info', {}))).rejects.toThrow();
  });
});

describe('activity', () => {
  it('the history shows what happened, filterable by kind and participant, and links to the handoff', async () => {
    await page.getByRole('button', { name: 'Activity' }).click();
    await page.locator('li[data-event-kind="handoff.approved"]').first().waitFor();
    await page.getByLabel('Filter by kind').selectOption('participant');
    await expect.poll(async () => new Set(await page.locator('li[data-event-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-event-kind'))))).toEqual(
      new Set(['participant.added', 'participant.token_rotated', 'participant.revoked']),
    );
    await page.getByLabel('Filter by kind').selectOption('');
    await page.getByLabel('Filter by participant').selectOption('worker');
    await expect.poll(async () => (await page.locator('li[data-event-kind]').allInnerTexts()).every((t) => t.includes('worker'))).toBe(true);
    // a new event shows up live
    const live = await acceptedHandoff('Live in the history');
    // named by its summary (Activity shows names, not ids), and it opens that handoff
    const row = page.locator('li[data-event-kind="handoff.accepted"]', { hasText: 'Live in the history' });
    await row.waitFor();
    await row.getByRole('button').click();
    await page.locator(`.handoff-detail[data-handoff-id="${live.id}"]`).waitFor();
  });
});

describe('the look', () => {
  it('Inbox, Agents and Activity with a populated room, light and dark', async () => {
    const pending = await acceptedHandoff('Review the migration plan for the billing tables', {
      constraints: 'No downtime. Keep the old columns for a week.',
      artifacts: [{ uri: 'git:9f2c1e7', name: 'plan commit' }],
    });
    await tool(worker, 'handoff_complete', {
      handoffId: pending.id,
      result: '## Plan\n\n1. Add the new columns\n2. Backfill in batches of `10,000`\n3. Switch reads\n\n> Rollback: drop the new columns.',
      artifacts: [{ uri: 'file:///work/plan.md', name: 'plan.md', mediaType: 'text/markdown' }],
    });
    const asking = await acceptedHandoff('Which region should the cache live in?');
    await tool(worker, 'handoff_request_input', { handoffId: asking.id, requests: { region: { message: 'Pick a region', requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu-west', 'us-east'] }, note: { type: 'string' } }, required: ['region'] } } } });
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${pending.id}"]`).click();
    await page.locator(`.handoff-detail[data-handoff-id="${pending.id}"]`).getByTestId('handoff-timeline').waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByRole('button', { name: /Inbox/ }).click();
      await page.locator(`.inbox-item[data-handoff-id="${pending.id}"]`).click();
      await page.locator(`.handoff-detail[data-handoff-id="${pending.id}"] [data-testid="handoff-timeline"]`).waitFor();
      await page.screenshot({ path: outputFile(`inbox-${scheme}.png`) });
      await page.locator(`.inbox-item[data-handoff-id="${asking.id}"]`).click();
      await page.locator(`form[data-request-key="region"]`).waitFor();
      await page.screenshot({ path: outputFile(`inbox-input-${scheme}.png`) });
      await page.getByRole('button', { name: 'Agents' }).click();
      await page.locator('tr[data-participant="worker"]').waitFor();
      await page.screenshot({ path: outputFile(`agents-${scheme}.png`) });
      await page.getByRole('button', { name: 'Activity' }).click();
      await page.locator('li[data-event-kind]').first().waitFor();
      await page.screenshot({ path: outputFile(`activity-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(pageErrors).toEqual([]);
  });
});
