/**
 * A handoff worked on a host, reviewed and merged in real Chromium (issue 42): the worktree is made on the host by
 * its room node, the agent's shell for the handoff goes there and commits, completion fetches the work back over
 * SSH; the person's review shows the diff and the host it was done on, and Approve and merge lands the reviewed
 * commit in the repository on this machine. Needs root for the sshd (skipped with the reason otherwise) and
 * `npm run build`. Screenshots at 1440, 1024 and 390, light and dark, in /work/shots/wt-hostwork (or $SHOTS).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { GIT_IDENTITY, git, makeRepo } from '../helpers/git-repo';
import { closeHosts, closeMasters, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

const unavailable = sshHostsUnavailable();
const USER = 'crhost-work2';
const ALIAS = 'gpu-box';
const HOST_REPO = `/home/${USER}/parser`;
const SHOTS = process.env.SHOTS ?? '/work/shots/wt-hostwork';
let room: UiRoom;
let hosts: SshHosts;
let sshDir: string;
const pageErrors: string[] = [];
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

async function shoot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [w, h] of [[1440, 900], [1024, 768], [390, 844]] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.waitForTimeout(150); // a layout pass after the resize
      await page.screenshot({ path: path.join(SHOTS, `${name}-${w}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe.skipIf(unavailable !== null)(`a handoff on a host, reviewed in the UI${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-review-'));
    hosts = await startSshHosts(sshDir, [{ alias: ALIAS, user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }]);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    room = await startUiRoom({ pageErrors, agents: ['builder'] });
    await room.runner.engine.call(room.runner.engine.operator(), 'host_add', { alias: ALIAS });
  }, 90_000);

  afterAll(async () => {
    const key = room?.runner.engine.room.id;
    if (room) {
      closeMasters(hosts, room.home.paths.configDir, [ALIAS]);
      await room.close();
    }
    if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
    else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
    if (hosts) await closeHosts(hosts, { aliases: [ALIAS], users: [USER], ...(key ? { nodeKey: key } : {}) });
    fs.rmSync(HOST_REPO, { recursive: true, force: true });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('shows the host\'s work fetched here, with its host, and Approve and merge lands the reviewed commit here', { timeout: 180_000 }, async () => {
    const { page, runner } = room;
    const engine = runner.engine;
    const op = engine.operator();
    const agent = room.agents[0];
    if (!agent) throw new Error('no agent');
    const repo = makeRepo(path.join(room.home.root, 'parser app'), { 'src/parser.ts': "export function parse(text: string): string[] {\n  return text.split(',');\n}\n", 'README.md': '# parser\n' });
    fs.rmSync(HOST_REPO, { recursive: true, force: true });
    execFileSync('git', ['clone', '-q', repo, HOST_REPO]);
    execFileSync('chown', ['-R', `${USER}:`, HOST_REPO]);

    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'Trim the fields the parser returns (on the GPU box)', to: 'builder', workspace: { repo, host: ALIAS, hostRepo: HOST_REPO } });
    await callTool<{ handoff: HandoffView }>(agent, 'handoff_accept', { handoffId: handoff.id });
    const { shell } = await callTool<{ shell: { id: string; host?: string } }>(agent, 'shell_open', { handoffId: handoff.id, name: 'work' });
    expect(shell.host).toBe(ALIAS);
    const id = `-c user.name=${GIT_IDENTITY.GIT_AUTHOR_NAME} -c user.email=${GIT_IDENTITY.GIT_AUTHOR_EMAIL}`;
    const edit = `sed -i "s/text.split(',')/text.split(',').map((field) => field.trim())/" src/parser.ts && git ${id} commit -qam "Trim parsed fields" && echo "committed-on-$(whoami)"\n`;
    await callTool(agent, 'shell_io', { shellId: shell.id, text: edit, wait: { until: 'match', pattern: `^committed-on-${USER}`, timeoutMs: 20_000 } });
    // its check runs on the host too, in the worktree (tasks_run with handoffId: the graph inherits the host)
    const { graphId } = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'unit tests', handoffId: handoff.id, stages: [{ id: 'unit', command: 'grep -q trim src/parser.ts' }] });
    await expect.poll(async () => (await engine.call(op, 'tasks_status', { graphId, stages: false })).graph.state, { timeout: 30_000 }).toBe('completed');
    const { handoff: done } = await callTool<{ handoff: HandoffView }>(agent, 'handoff_complete', { handoffId: handoff.id, result: 'Fields are trimmed.' });
    const reviewed = done.workspace?.evidence?.head ?? '';

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${handoff.id}"]`).click();
    const bar = page.getByRole('group', { name: 'Decision' });
    await expect.poll(() => bar.getByTestId('preview-merge').innerText(), { timeout: 20_000 }).toBe('main has not moved; merges as a fast-forward');
    expect(await page.getByTestId('workspace-host').innerText()).toBe(ALIAS);
    expect(await bar.getByTestId('preview-checks').innerText()).toBe('checks passed');
    expect(await bar.getByTestId('approve').getAttribute('class')).toContain('primary');
    await expect.poll(() => page.locator('.diff-file[data-path="src/parser.ts"]').innerText()).toContain('field.trim()');
    await shoot(page, 'host-review');

    await page.getByRole('button', { name: /Approve and merge/ }).click();
    await expect.poll(async () => (await engine.call(op, 'handoff_get', { handoffId: handoff.id })).handoff.workspace?.state, { timeout: 30_000 }).toBe('merged');
    expect(git(repo, 'rev-parse', 'main')).toBe(reviewed);
    expect(git(repo, 'show', 'main:src/parser.ts')).toContain('field.trim()');
    await page.waitForTimeout(300); // the review redraws with the decision
    await page.screenshot({ path: path.join(SHOTS, 'host-review-merged-1440-light.png') });
    expect(pageErrors).toEqual([]);
  });
});
