/**
 * The room's own git runs nothing an agent can write. Through the MCP endpoint with real SDK clients, a real room
 * and real git: a handoff with a workspace is accepted (git worktree add), worked in by the agent's shell,
 * completed (git status, diff, log) and approved with a merge (merge-tree, commit-tree, merge --ff-only). Before
 * that, what an agent can write is planted: hooks, core.fsmonitor, a ~/.gitconfig of the person's, a filter and a
 * merge driver named by .gitattributes, a textconv and external diff, a signature checker, a nested repository
 * at a gitlink, a conditional include. Each planted program tries to copy the operator token to a marker file
 * (and to print it): no marker appears, no answer to the agent holds the token, and the ordinary flow still
 * works: the merge lands with the expected content and the person's name from their own config. (What
 * handoff_create refuses in workspace.repo and workspace.base is in workspace-input.test.ts.)
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { connectAgent, connectWithToken } from '../e2e/helpers/ui-room';
import { GIT_IDENTITY } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let person: string; // the runner's HOME: the person's ~/.gitconfig is here
let plants: string;
let markers: string;
const clients: Record<string, Client> = {};
const seenByAgents: string[] = []; // every answer lead and dev got, to look for the token in
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
const PERSON_CONFIG = '[user]\n\tname = Pat Person\n\temail = pat@example.com\n[core]\n\texcludesFile = ~/.gitignore_global\n';

beforeAll(async () => {
  person = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-person-'));
  process.env.HOME = person;
  process.env.XDG_CONFIG_HOME = path.join(person, '.config');
  fs.writeFileSync(path.join(person, '.gitconfig'), PERSON_CONFIG);
  fs.writeFileSync(path.join(person, '.gitignore_global'), '*.log\n');
  runner = await startTestRunner();
  plants = path.join(runner.home.root, 'plants');
  markers = path.join(runner.home.root, 'markers');
  fs.mkdirSync(path.join(plants, 'hooks'), { recursive: true });
  fs.mkdirSync(markers);
  clients.operator = await connectWithToken(runner.running, runner.token);
  clients.lead = await connectAgent(runner.running, 'lead');
  clients.dev = await connectAgent(runner.running, 'dev');
}, 60_000);

afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
  await runner?.close();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  fs.rmSync(person, { recursive: true, force: true });
});

/** The test's own git, as the person: their identity, and nothing planted run by it either. */
function own(cwd: string, ...args: string[]): string {
  const env = { PATH: process.env.PATH, HOME: person, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...GIT_IDENTITY };
  return execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], { cwd, env, encoding: 'utf8' }).trim();
}

/** A repository (no identity in its own config: the person's is global) with one commit on main. */
function makeRepo(name: string, files: Record<string, string>): string {
  const repo = path.join(runner.home.root, name);
  fs.mkdirSync(repo, { recursive: true });
  own(repo, 'init', '-q', '-b', 'main');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
  }
  own(repo, 'add', '-A');
  own(repo, 'commit', '-q', '-m', 'first');
  return repo;
}

/**
 * A program an agent could plant: it copies the operator token to markers/<kind> and prints it, then does its
 * job's least (a filter passes its input through, a textconv prints the file).
 */
function plant(kind: string, then = 'exit 0'): string {
  const file = path.join(plants, kind);
  fs.writeFileSync(file, `#!/bin/sh\ncp '${runner.running.tokenFile}' '${path.join(markers, kind)}' 2>/dev/null\ncat '${runner.running.tokenFile}' 2>/dev/null\n${then}\n`, { mode: 0o755 });
  return file;
}

/** What an agent writes into the repository's own config (its worktree's git folder points there). */
const setConfig = (repo: string, key: string, value: string) => own(repo, 'config', '--file', path.join(repo, '.git', 'config'), key, value);

async function call<T>(who: string, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await clients[who]?.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (who !== 'operator') seenByAgents.push(JSON.stringify(r));
  if (r.isError) throw new Error(r.content[0]?.text ?? 'tool error');
  return r.structuredContent;
}

type H = { handoff: HandoffView };

/** The agent's shell in the workspace; its own git runs none of the plants (the room's git is what is tried). */
async function agentWork(handoffId: string, command: string): Promise<void> {
  const env = { ...GIT_IDENTITY, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PS1: '$ ' };
  const { shell } = await call<{ shell: { id: string } }>('dev', 'shell_open', { handoffId, shell: '/bin/sh', env });
  const quiet = 'g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c diff.external= "$@"; }';
  const run = await call<{ status: string; exitCode: number | null; output: string }>('dev', 'shell_run', { shellId: shell.id, command: `${quiet}; ${command}`, timeoutMs: 30_000 });
  await call('dev', 'shell_close', { shellId: shell.id });
  expect(run, run.output).toMatchObject({ status: 'finished', exitCode: 0 });
}

interface Flow {
  repo: string;
  /** The agent's work in its worktree (`g` is its git). */
  work: string;
  /** After the agent's work, before completion: what an agent plants once its own commits are made. */
  afterWork?: (worktree: string) => void;
  /** The person's own commit on main while the work goes on (the approval then makes a merge commit). */
  mainMoves?: Record<string, string>;
}

interface Approval {
  merged?: { commit: string; fastForward: boolean };
  refused?: string;
  handoff: HandoffView;
}

/** Create, accept, work, complete, approve with merge: the approval's answer (or its refusal's text). */
async function flow(f: Flow): Promise<Approval> {
  const { handoff } = await call<H>('lead', 'handoff_create', { summary: 'the planted work', to: 'dev', workspace: { repo: f.repo } });
  const accepted = (await call<H>('dev', 'handoff_accept', { handoffId: handoff.id })).handoff;
  await agentWork(handoff.id, f.work);
  f.afterWork?.(accepted.workspace?.path ?? '');
  if (f.mainMoves) {
    for (const [file, text] of Object.entries(f.mainMoves)) fs.writeFileSync(path.join(f.repo, file), text);
    own(f.repo, 'add', '-A');
    own(f.repo, 'commit', '-q', '-m', 'main moves on');
  }
  const done = (await call<H>('dev', 'handoff_complete', { handoffId: handoff.id, result: 'done' })).handoff;
  await call('lead', 'handoff_evidence', { handoffId: handoff.id });
  const r = (await clients.operator?.callTool({ name: 'handoff_approve', arguments: { handoffId: handoff.id, merge: true } })) as { isError?: boolean; content: { text: string }[]; structuredContent: { merged: { commit: string; fastForward: boolean } } };
  return r.isError ? { refused: r.content[0]?.text ?? '', handoff: done } : { merged: r.structuredContent.merged, handoff: done };
}

/** Nothing planted ran, and no answer to an agent held the token. */
function nothingRan(): void {
  expect(fs.readdirSync(markers), 'planted programs that ran as the person').toEqual([]);
  expect(seenByAgents.filter((a) => a.includes(runner.token)), 'answers to an agent holding the operator token').toEqual([]);
}

/** The merge landed on main with `files`, as a merge commit by the person (from ~/.gitconfig) when main had moved. */
function landed(repo: string, a: Approval, files: Record<string, string>): void {
  expect(a.refused, 'the approval was refused').toBeUndefined();
  expect(own(repo, 'rev-parse', 'main')).toBe(a.merged?.commit);
  for (const [file, text] of Object.entries(files)) expect(fs.readFileSync(path.join(repo, file), 'utf8')).toBe(text);
  if (a.merged?.fastForward === false) expect(own(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>', 'main')).toBe('Pat Person <pat@example.com>|Pat Person <pat@example.com>');
}

const HOOKS = ['post-checkout', 'post-merge', 'reference-transaction', 'post-index-change'];
const COMMIT_A = 'echo x > a.txt && g add a.txt && g commit -q -m a';

describe("the room's git runs nothing an agent planted", () => {
  beforeEach(() => {
    fs.rmSync(markers, { recursive: true, force: true });
    fs.mkdirSync(markers);
  });

  it.each(HOOKS)('a %s hook in the repository', { timeout: 60_000 }, async (hook) => {
    const repo = makeRepo(`hook-${hook}`, { 'README.md': '# app\n' });
    fs.copyFileSync(plant(hook), path.join(repo, '.git', 'hooks', hook));
    fs.chmodSync(path.join(repo, '.git', 'hooks', hook), 0o755);
    const approval = await flow({ repo, work: COMMIT_A, mainMoves: { 'other.txt': 'from main\n' } });
    nothingRan();
    landed(repo, approval, { 'a.txt': 'x\n', 'other.txt': 'from main\n' });
  });

  it('core.fsmonitor in the repository config (git status at completion)', { timeout: 60_000 }, async () => {
    const repo = makeRepo('fsmonitor', { 'README.md': '# app\n' });
    setConfig(repo, 'core.fsmonitor', plant('fsmonitor'));
    const approval = await flow({ repo, work: `${COMMIT_A} && echo y > untracked.txt` });
    nothingRan();
    expect(approval.handoff.workspace?.evidence).toMatchObject({ commitCount: 1, files: 1, uncommitted: [{ path: 'untracked.txt', status: 'untracked' }] });
    landed(repo, approval, { 'a.txt': 'x\n' });
  });

  it("the person's ~/.gitconfig (hooks path, fsmonitor, attributes, a filter and an external diff); its data (name, global ignore file) still counts", { timeout: 60_000 }, async () => {
    const repo = makeRepo('global-config', { 'README.md': '# app\n' });
    for (const hook of HOOKS) fs.copyFileSync(plant(`global-${hook}`), path.join(plants, 'hooks', hook));
    fs.writeFileSync(path.join(plants, 'attributes'), '* filter=g\n');
    const planted = `[core]\n\thooksPath = ${path.join(plants, 'hooks')}\n\tfsmonitor = ${plant('global-fsmonitor')}\n\tattributesFile = ${path.join(plants, 'attributes')}\n[filter "g"]\n\tsmudge = ${plant('global-smudge', 'exec cat')}\n\tclean = ${plant('global-clean', 'exec cat')}\n[diff]\n\texternal = ${plant('global-external-diff')}\n`;
    fs.writeFileSync(path.join(person, '.gitconfig'), PERSON_CONFIG + planted);
    try {
      const approval = await flow({ repo, work: `${COMMIT_A} && echo d > debug.log && echo n > notes.tmp`, mainMoves: { 'b.txt': 'b\n' } });
      nothingRan();
      expect(approval.handoff.workspace?.evidence).toMatchObject({ uncommitted: [{ path: 'notes.tmp', status: 'untracked' }], uncommittedCount: 1 });
      landed(repo, approval, { 'a.txt': 'x\n', 'b.txt': 'b\n' });
    } finally {
      fs.writeFileSync(path.join(person, '.gitconfig'), PERSON_CONFIG);
    }
  });

  it(".gitattributes on the agent's branch naming a smudge and clean filter (status at completion, checkout at merge)", { timeout: 60_000 }, async () => {
    const repo = makeRepo('filter', { 'README.md': '# app\n' });
    const approval = await flow({
      repo,
      // committed before the driver exists; then a tracked file touched (same size, another time), so that git
      // status must read it through the clean filter to know whether it changed
      work: "printf '*.txt filter=leak\\n' > .gitattributes && echo kept > notes.txt && g add -A && g commit -q -m notes && touch -d @1000000000 notes.txt",
      afterWork: () => {
        setConfig(repo, 'filter.leak.smudge', plant('smudge', 'exec cat'));
        setConfig(repo, 'filter.leak.clean', plant('clean', 'exec cat'));
        setConfig(repo, 'filter.leak.required', 'true');
      },
    });
    nothingRan();
    landed(repo, approval, { 'notes.txt': 'kept\n', '.gitattributes': '*.txt filter=leak\n' });
  });

  it('a merge driver named by .gitattributes: not run; the file is a conflict and nothing changes', { timeout: 60_000 }, async () => {
    const lines = (first: string, last: string) => `${first}\n2\n3\n4\n5\n${last}\n`;
    const repo = makeRepo('merge-driver', { '.gitattributes': '*.cfg merge=leak\n', 'settings.cfg': lines('1', '6') });
    setConfig(repo, 'merge.leak.driver', `${plant('merge-driver')} %O %A %B`);
    const approval = await flow({ repo, work: `printf '${lines('one', '6').replaceAll('\n', '\\n')}' > settings.cfg && g commit -q -am one`, mainMoves: { 'settings.cfg': lines('1', 'six') } });
    nothingRan();
    const main = own(repo, 'rev-parse', 'main');
    expect(approval.refused).toMatch(/conflicts in 1 file: settings\.cfg\. Nothing was changed/);
    expect(own(repo, 'rev-parse', 'main')).toBe(main);
    expect(fs.readFileSync(path.join(repo, 'settings.cfg'), 'utf8')).toBe(lines('1', 'six'));
  });

  it('a textconv and an external diff for the files of the change (the diff at completion)', { timeout: 60_000 }, async () => {
    const repo = makeRepo('textconv', { 'README.md': '# app\n' });
    setConfig(repo, 'diff.leak.textconv', plant('textconv', 'cat "$1"'));
    setConfig(repo, 'diff.leak.command', plant('diff-command'));
    setConfig(repo, 'diff.external', plant('diff-external'));
    const approval = await flow({ repo, work: `printf '*.txt diff=leak\\n' > .gitattributes && ${COMMIT_A.replace('g add a.txt', 'g add -A')}` });
    nothingRan();
    const { files } = await call<{ files: { path: string; patch: string | null }[] }>('lead', 'handoff_evidence', { handoffId: approval.handoff.id });
    expect(files.find((f) => f.path === 'a.txt')?.patch).toMatch(/\n\+x\n/);
    landed(repo, approval, { 'a.txt': 'x\n' });
  });

  it('a signed commit, with log.showSignature and merge.verifySignatures naming a gpg program (the log at completion)', { timeout: 60_000 }, async () => {
    const repo = makeRepo('signature', { 'README.md': '# app\n' });
    setConfig(repo, 'gpg.program', plant('gpg'));
    setConfig(repo, 'log.showSignature', 'true');
    setConfig(repo, 'merge.verifySignatures', 'true');
    const signed = String.raw`T=$(g rev-parse 'HEAD^{tree}') && P=$(g rev-parse HEAD) && C=$(printf 'tree %s\nparent %s\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n' "$T" "$P" | g hash-object -t commit -w --stdin) && g update-ref HEAD "$C"`;
    const approval = await flow({ repo, work: `${COMMIT_A} && ${signed}` });
    nothingRan();
    expect(approval.handoff.workspace?.evidence?.commits.map((c) => c.subject)).toEqual(['signed', 'a']);
    landed(repo, approval, { 'a.txt': 'x\n' });
  });

  it("a nested repository at a gitlink, with its own filter and external diff (status and diff look inside it)", { timeout: 60_000 }, async () => {
    const repo = makeRepo('nested', { 'README.md': '# app\n' });
    setConfig(repo, 'diff.submodule', 'diff');
    const inner = `git init -q inner && cd inner && printf '* filter=zz\\n' > .gitattributes && echo x > y.t && g add -A && g commit -q -m i && g config filter.zz.clean '${plant('nested-clean', 'exec cat')}' && g config diff.external '${plant('nested-diff')}' && cd ..`;
    const approval = await flow({ repo, work: `${inner} && g update-index --add --cacheinfo "160000,$(g -C inner rev-parse HEAD),inner" && g commit -q -m nested && touch -d @1000000000 inner/y.t` });
    nothingRan();
    expect(approval.handoff.workspace?.evidence).toMatchObject({ commitCount: 1, files: 1 });
    landed(repo, approval, {});
    expect(own(repo, 'ls-tree', 'main', 'inner')).toMatch(/^160000 commit /);
  });

  it('a filter defined in a file the repository config includes only on the work\'s branch (checked out at accept)', { timeout: 60_000 }, async () => {
    const repo = makeRepo('include-if', { 'README.md': '# app\n', 'docs/guide.md': 'read me\n' });
    fs.writeFileSync(path.join(plants, 'late.cfg'), `[filter "late"]\n\tsmudge = ${plant('include-smudge', 'exec cat')}\n\tclean = ${plant('include-clean', 'exec cat')}\n`);
    setConfig(repo, 'includeIf.onbranch:commonroom/**.path', path.join(plants, 'late.cfg'));
    fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), '*.md filter=late\n');
    const approval = await flow({ repo, work: COMMIT_A });
    nothingRan();
    landed(repo, approval, { 'a.txt': 'x\n', 'docs/guide.md': 'read me\n' });
  });
  it("a filter named in a worktree's own config.worktree (git worktree remove's status, when the approval tidies)", { timeout: 60_000 }, async () => {
    const repo = makeRepo('worktree-config', { 'README.md': '# app\n' });
    setConfig(repo, 'extensions.worktreeConfig', 'true');
    fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), '*.txt filter=wt\n');
    let folder = '';
    const approval = await flow({
      repo,
      work: `${COMMIT_A} && touch -d @1000000000 a.txt`,
      afterWork: (worktree) => {
        folder = worktree;
        const gitDir = fs.readFileSync(path.join(worktree, '.git'), 'utf8').replace(/^gitdir: /, '').trim();
        fs.writeFileSync(path.join(gitDir, 'config.worktree'), `[filter "wt"]\n\tclean = ${plant('worktree-clean', 'exec cat')}\n`);
      },
    });
    nothingRan();
    landed(repo, approval, { 'a.txt': 'x\n' });
    expect(fs.existsSync(folder), 'the approval removed the worktree (running git worktree remove)').toBe(false);
  });
  it("core.worktree in the repository config: the approval's merge would write the branch's files into another folder", { timeout: 60_000 }, async () => {
    const repo = makeRepo('moved-tree', { 'README.md': '# app\n' });
    const elsewhere = fs.mkdtempSync(path.join(person, 'elsewhere-'));
    const approval = await flow({ repo, work: "echo 'echo pwned' > .profile && g add .profile && g commit -q -m profile", afterWork: () => setConfig(repo, 'core.worktree', elsewhere) });
    nothingRan();
    expect(fs.readdirSync(elsewhere), 'files the merge wrote outside the repository').toEqual([]);
    expect(approval.refused).toMatch(/working tree moved by its config \(core\.worktree = ".*elsewhere-.*"\): the room does not run git there\. If you did not set it, remove it: git config --unset core\.worktree/);
    expect(fs.existsSync(path.join(repo, '.profile'))).toBe(false);
  });

  it('a replace ref over the work\'s commit: the review and the merge hold what the commit holds', { timeout: 60_000 }, async () => {
    const repo = makeRepo('replace-ref', { 'README.md': '# app\n' });
    const swap = "echo harmless > a.txt && g add a.txt && g commit -q -m a && F=$(g rev-parse HEAD) && g reset -q --hard HEAD~1 && " + COMMIT_A + ' && g replace "$(g rev-parse HEAD)" "$F"';
    const approval = await flow({ repo, work: swap });
    nothingRan();
    const { files } = await call<{ files: { path: string; patch: string | null }[] }>('lead', 'handoff_evidence', { handoffId: approval.handoff.id });
    expect(files.find((f) => f.path === 'a.txt')?.patch).toMatch(/\n\+x\n/);
    landed(repo, approval, { 'a.txt': 'x\n' });
  });

  it("a `git` the agent leaves in its worktree, with the person's PATH holding a relative entry", { timeout: 60_000 }, async () => {
    const repo = makeRepo('path-git', { 'README.md': '# app\n' });
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const pathBefore = process.env.PATH;
    process.env.PATH = `.${path.delimiter}${pathBefore ?? ''}`;
    try {
      const approval = await flow({ repo, work: COMMIT_A, afterWork: (worktree) => fs.copyFileSync(plant('path-git', `exec '${realGit}' "$@"`), path.join(worktree, 'git')) });
      nothingRan();
      landed(repo, approval, { 'a.txt': 'x\n' });
    } finally {
      process.env.PATH = pathBefore;
    }
  });
});
