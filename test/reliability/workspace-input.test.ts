/**
 * What handoff_create refuses in a workspace, through the MCP endpoint with a real SDK client: a relative
 * workspace.repo (it was resolved against the runner's own folder, and the refusal showed that path) and a NUL or
 * another control character in workspace.base or workspace.repo (a NUL in base answered INTERNAL). Each refusal
 * is INVALID_INPUT naming what was given and what to give instead, and creates nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { callTool, connectAgent } from '../e2e/helpers/ui-room';
import { git, makeRepo } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let lead: Client;

beforeAll(async () => {
  runner = await startTestRunner();
  lead = await connectAgent(runner.running, 'lead');
}, 60_000);

afterAll(async () => {
  await lead?.close();
  await runner?.close();
});

async function refused(workspace: Record<string, unknown>): Promise<string> {
  const r = (await lead.callTool({ name: 'handoff_create', arguments: { summary: 'refused', workspace } })) as { isError?: boolean; content: { text: string }[] };
  expect(r.isError, 'handoff_create should have been refused').toBe(true);
  return r.content[0]?.text ?? '';
}

describe('handoff_create refuses a workspace it cannot take as given', () => {
  it("a relative workspace.repo: named as given, never resolved against the runner's folder", async () => {
    const text = await refused({ repo: 'src/app' });
    expect(text).toBe('INVALID_INPUT: workspace.repo "src/app" is a relative path: give the repository\'s absolute path');
    expect(text).not.toContain(process.cwd());
    expect(await refused({ repo: '~/src/app' })).toMatch(/^INVALID_INPUT: workspace\.repo "~\/src\/app" is a relative path: .*"~" is not expanded/);
    expect(await refused({ repo: '.' })).toMatch(/^INVALID_INPUT: workspace\.repo "\." is a relative path/);
  });

  it('a NUL or another control character in workspace.base or workspace.repo is invalid input, saying what to give', async () => {
    const repo = makeRepo(path.join(runner.home.root, 'control'), { 'README.md': '# app\n' });
    expect(await refused({ repo, base: 'ma\u0000in' })).toBe('INVALID_INPUT: workspace.base "ma\\u0000in" holds a control character: give a branch (e.g. main), a tag or a commit');
    expect(await refused({ repo, base: 'main\u001b[2J' })).toMatch(/^INVALID_INPUT: workspace\.base .* holds a control character/);
    expect(await refused({ repo: `${repo}\u0000` })).toMatch(/^INVALID_INPUT: workspace\.repo .* holds a control character: give the repository's path/);
    // the same repository and base without them is taken
    expect((await callTool<{ handoff: HandoffView }>(lead, 'handoff_create', { summary: 'taken', workspace: { repo, base: 'main' } })).handoff.workspace?.baseBranch).toBe('main');
    const listed = await callTool<{ handoffs: HandoffView[] }>(lead, 'handoff_list', {});
    expect(listed.handoffs.filter((h) => h.summary === 'refused')).toEqual([]);
  });

  it("git's ancestry suffixes name a base (HEAD~1, main^): the commit they name, approvable without a merge; a pathspec or a glob is not a base", async () => {
    const repo = makeRepo(path.join(runner.home.root, 'history'), { 'README.md': '# app\n' });
    const first = git(repo, 'rev-parse', 'HEAD');
    fs.writeFileSync(path.join(repo, 'README.md'), '# app, again\n');
    git(repo, 'commit', '-q', '-am', 'second');
    for (const base of ['HEAD~1', 'main^']) {
      const { handoff } = await callTool<{ handoff: HandoffView }>(lead, 'handoff_create', { summary: `from ${base}`, workspace: { repo, base } });
      expect(handoff.workspace).toMatchObject({ base, baseCommit: first });
      expect(handoff.workspace?.baseBranch ?? null).toBeNull(); // not a branch: nothing to merge into
    }
    expect(await refused({ repo, base: 'main:README.md' })).toMatch(/is not a branch, tag or commit name \(such as main, v1\.2, HEAD~1 or a commit id\)/);
    expect(await refused({ repo, base: 'ma*' })).toMatch(/is not a branch, tag or commit name/);
  });
});
