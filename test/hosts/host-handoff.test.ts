import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvidenceFile, HandoffView, MergePreview } from '../../src-main/common/handoff-dto';
import { GIT_IDENTITY, git, makeRepo } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { closeHosts, closeMasters, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';

/**
 * A handoff on a host, through the MCP door (issue 42, Deliver 3 for worktrees): the worktree is made on the
 * host by its room node, in the host's own clone; the agent's shell opened for the handoff goes there (it
 * inherits the host) and commits; the review reads the work fetched back into the person's repository over
 * SSH (a ref of the room's own, never a branch of theirs); approve-and-merge lands exactly the reviewed commit,
 * not one made on the host after the review. Real OpenSSH: a private sshd and two stand-in machines.
 */
const unavailable = sshHostsUnavailable();
const USER = 'crhost-work';
const HOST_REPO = `/home/${USER}/project`;
let hosts: SshHosts;
let sshDir: string;
let runner: TestRunner;
let agent: Client;
let lead: Client;
let laptopRepo: string;
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

/** Runs `script` on the host as its account, as the person would over plain ssh. */
function onHost(alias: string, script: string): string {
  return execFileSync('ssh', [...hosts.sshArgs(alias), script], { encoding: 'utf8', timeout: 30_000 }).trim();
}


describe.skipIf(unavailable !== null)(`a handoff's worktree on a host, through the MCP door${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-work-'));
    // keptbox: a second alias of the person's (the same stand-in machine), one they keep for their own work;
    // crhost-work2 is the Chromium review's host (test/e2e/host-review.test.ts), which may run at the same time
    hosts = await startSshHosts(sshDir, [{ alias: 'workbox', user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }], ['Host keptbox', '  HostName 127.0.0.1']);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    runner = await startTestRunner();
    // the person's repository on the laptop, and the host's own clone of it (owned by the host's account)
    laptopRepo = makeRepo(path.join(runner.home.root, 'laptop-repo'), { 'README.md': '# app\n', 'src/app.txt': 'one\n' });
    fs.rmSync(HOST_REPO, { recursive: true, force: true });
    execFileSync('git', ['clone', '-q', laptopRepo, HOST_REPO]);
    execFileSync('chown', ['-R', `${USER}:`, HOST_REPO]);
    const engine = runner.running.engine;
    const operator = engine.operator();
    await engine.call(operator, 'host_add', { alias: 'workbox' });
    await engine.call(operator, 'host_add', { alias: 'keptbox', agents: false });
    const added = await engine.call(operator, 'participant_add', { name: 'builder', capabilities: ['read', 'write'] });
    const leader = await engine.call(operator, 'participant_add', { name: 'lead', capabilities: ['read', 'write'] });
    const connect = async (token: string) => {
      const client = new Client({ name: 'host-work-test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(runner.running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    };
    agent = await connect(added.token);
    lead = await connect(leader.token);
  }, 90_000);

  afterAll(async () => {
    await agent?.close();
    await lead?.close();
    if (runner) {
      closeMasters(hosts, runner.home.paths.configDir, ['workbox']);
      await runner.close();
    }
    if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
    else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
    if (hosts) await closeHosts(hosts, { aliases: ['workbox'], users: [USER], ...(runner ? { nodeKey: runner.running.engine.room.id } : {}) });
    fs.rmSync(HOST_REPO, { recursive: true, force: true });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('worktree on the host, a commit made there, reviewed here from a fetch, and exactly the reviewed commit merged', async () => {
    const engine = runner.running.engine;
    const operator = engine.operator();
    const base = git(laptopRepo, 'rev-parse', 'HEAD');
    // a hook an agent left in the host's clone: the node's git never runs it (worktree add would run post-checkout)
    const marker = `/home/${USER}/hook-ran`;
    fs.rmSync(marker, { force: true });
    fs.writeFileSync(path.join(HOST_REPO, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    execFileSync('chown', ['-R', `${USER}:`, HOST_REPO]);

    const { handoff: created } = await tool<{ handoff: HandoffView }>(lead, 'handoff_create', {
      summary: 'Change the app on the dev box',
      to: 'builder',
      workspace: { repo: laptopRepo, host: 'workbox', hostRepo: HOST_REPO },
    });
    expect(created.workspace).toMatchObject({ host: 'workbox', hostRepo: HOST_REPO, state: 'planned', baseCommit: base, branch: `commonroom/${created.id}` });
    const { handoff: accepted } = await tool<{ handoff: HandoffView }>(agent, 'handoff_accept', { handoffId: created.id });
    const folder = accepted.workspace?.path as string;
    expect(accepted.workspace?.state).toBe('ready');
    expect(folder.startsWith(`/home/${USER}/`)).toBe(true);
    // the worktree is on the host, in its clone, on the work's branch at the base commit; not on this machine
    expect(fs.existsSync(folder)).toBe(true); // the stand-in host shares this machine's disk: look from its account
    expect(onHost('workbox', `git -C ${folder} rev-parse --abbrev-ref HEAD`)).toBe(`commonroom/${created.id}`);
    expect(onHost('workbox', `git -C ${folder} rev-parse HEAD`)).toBe(base);
    expect(fs.existsSync(marker)).toBe(false);

    // the agent's shell for the handoff goes to the host (inherited), in the worktree, and commits there
    const { shell } = await tool<{ shell: { id: string; host?: string; cwd: string } }>(agent, 'shell_open', { handoffId: created.id, name: 'work' });
    expect(shell.host).toBe('workbox');
    expect(shell.cwd).toBe(folder);
    const id = `-c user.name=${GIT_IDENTITY.GIT_AUTHOR_NAME} -c user.email=${GIT_IDENTITY.GIT_AUTHOR_EMAIL}`;
    const script = `echo two >> src/app.txt && echo new > src/new.txt && git add -A && git ${id} commit -q -m "Work done on the host" && echo scratch > scratch.txt && echo "committed-$(whoami)"\n`;
    const ran = await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, text: script, wait: { until: 'match', pattern: `^committed-${USER}`, timeoutMs: 20_000 } });
    expect(ran.output).toContain(`committed-${USER}`);
    const reviewed = onHost('workbox', `git -C ${folder} rev-parse HEAD`);
    expect(reviewed).not.toBe(base);
    // its tested-by run goes to the host too, in the worktree (inherited), and is the review's check
    const { graphId } = await tool<{ graphId: string }>(agent, 'tasks_run', { name: 'unit tests', handoffId: created.id, stages: [{ id: 'unit', command: `grep -q two src/app.txt && test "$(pwd)" = ${folder} && whoami` }] });
    type Status = { graph: { state: string }; stages: { id: string; state: string; host?: string }[] };
    let ended = await tool<Status>(agent, 'tasks_status', { graphId, until: 'ended', waitMs: 20_000 });
    for (let i = 0; i < 5 && !['completed', 'failed', 'cancelled'].includes(ended.graph.state); i++) ended = await tool<Status>(agent, 'tasks_status', { graphId, until: 'ended', waitMs: 20_000 });
    expect(ended.graph.state).toBe('completed');
    expect(ended.stages[0]).toMatchObject({ id: 'unit', state: 'completed', host: 'workbox' });
    await expect(tool(agent, 'tasks_run', { handoffId: created.id, host: 'keptbox', stages: [{ id: 'x', command: 'true' }] })).rejects.toThrow(/on host workbox, not on keptbox/);
    // a shell for that handoff cannot be sent elsewhere
    await expect(tool(agent, 'shell_open', { handoffId: created.id, host: 'keptbox' })).rejects.toThrow(/on host workbox, not on keptbox/);

    // completed: the work is fetched here and captured from the fetched commit
    const { handoff: done } = await tool<{ handoff: HandoffView }>(agent, 'handoff_complete', { handoffId: created.id, result: 'done on the host' });
    // completing ended the agent's work in the worktree there: its shell is closed, and no new one is opened
    await expect(tool(agent, 'shell_io', { shellId: shell.id })).rejects.toThrow(/unknown shell/);
    // …and let go here as a closed shell is: no record of it left for a restarted room to look for
    expect(engine.room.db.prepare('SELECT count(*) AS n FROM host_shells WHERE id = ?').get(shell.id)).toEqual({ n: 0 });
    await expect(tool(agent, 'shell_open', { handoffId: created.id })).rejects.toThrow(/its assignee's work in the worktree ended/);
    expect(done.workspace?.evidence?.head).toBe(reviewed);
    expect(done.workspace?.evidence?.commits.map((c) => c.subject)).toEqual(['Work done on the host']);
    // what is not committed there is listed by the host's node, and is not part of the change
    expect(done.workspace?.evidence?.uncommitted).toEqual([{ path: 'scratch.txt', status: 'untracked' }]);
    const page = await engine.call(operator, 'handoff_evidence', { handoffId: created.id });
    const files = page.files as EvidenceFile[];
    expect(files.map((f) => f.path).sort()).toEqual(['src/app.txt', 'src/new.txt']);
    expect(files.find((f) => f.path === 'src/app.txt')?.patch).toContain('+two');
    // fetched into the room's own ref, never a branch of the person's
    expect(git(laptopRepo, 'rev-parse', `refs/commonroom/fetched/${created.id}`)).toBe(reviewed);
    expect(git(laptopRepo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/main');
    const { preview } = (await engine.call(operator, 'handoff_preview', { handoffId: created.id })) as { preview: MergePreview };
    expect(preview).toMatchObject({ head: reviewed, into: 'main', merge: 'fast-forward', conflicts: [], checks: { state: 'passed', failed: [] } });
    expect(done.workspace?.evidence?.runs.map((r) => [r.graphId, r.state])).toEqual([[graphId, 'completed']]);
    const shown = await engine.call(operator, 'handoff_file', { handoffId: created.id, at: 'head', path: 'src/new.txt' });
    expect(shown.content).toBe('new\n');

    // after the review, another commit lands on the host's branch: it is not what was approved
    onHost('workbox', `cd ${folder} && echo late > late.txt && git add late.txt && git ${id} commit -q -m "After the review"`);
    const late = onHost('workbox', `git -C ${folder} rev-parse HEAD`);
    expect(late).not.toBe(reviewed);

    const approved = await engine.call(operator, 'handoff_approve', { handoffId: created.id, merge: true, commit: reviewed });
    expect(approved.merged).toMatchObject({ into: 'main', commit: reviewed, fastForward: true });
    expect(git(laptopRepo, 'rev-parse', 'main')).toBe(reviewed);
    // the person's checkout has the reviewed work, not the late commit (never fetched, never merged)
    expect(fs.readFileSync(path.join(laptopRepo, 'src', 'new.txt'), 'utf8')).toBe('new\n');
    expect(fs.existsSync(path.join(laptopRepo, 'late.txt'))).toBe(false);
    expect(spawnSync('git', ['-C', laptopRepo, 'cat-file', '-e', `${late}^{commit}`]).status).not.toBe(0);
    expect(git(laptopRepo, 'status', '--porcelain')).toBe('');
    // the room's ref is gone once merged; the host's branch keeps the commit nobody reviewed
    expect(spawnSync('git', ['-C', laptopRepo, 'rev-parse', '--verify', '--quiet', `refs/commonroom/fetched/${created.id}`]).status).not.toBe(0);
    const after = await engine.call(operator, 'handoff_get', { handoffId: created.id });
    expect(after.handoff.status).toBe('approved');
    expect(after.handoff.workspace?.state).toBe('merged');
    // the worktree there holds an uncommitted file: kept, and said
    expect(after.handoff.workspace?.note).toMatch(/on workbox: kept: 1 uncommitted change/);
    expect(onHost('workbox', `git -C ${HOST_REPO} rev-parse refs/heads/commonroom/${created.id}`)).toBe(late);
  }, 180_000);

  it('refuses a host the person keeps, a clone path that is not absolute, and a clone without the base commit, saying what to do', async () => {
    await expect(tool(lead, 'handoff_create', { summary: 'x', to: 'builder', workspace: { repo: laptopRepo, host: 'keptbox', hostRepo: HOST_REPO } })).rejects.toThrow(/host keptbox is for the person's own work/);
    await expect(tool(lead, 'handoff_create', { summary: 'x', to: 'builder', workspace: { repo: laptopRepo, host: 'workbox', hostRepo: 'project' } })).rejects.toThrow(/not an absolute path/);
    await expect(tool(lead, 'handoff_create', { summary: 'x', to: 'builder', workspace: { repo: laptopRepo, host: 'workbox', hostRepo: `${HOST_REPO}\n` } })).rejects.toThrow(/without control characters/);
    await expect(tool(lead, 'handoff_create', { summary: 'x', to: 'builder', workspace: { repo: laptopRepo, host: 'workbox' } })).rejects.toThrow(/host and hostRepo together/);
    // a commit the host's clone never got: the accept says to bring the clone up to date, and nothing is made
    fs.writeFileSync(path.join(laptopRepo, 'only-here.txt'), 'x\n');
    git(laptopRepo, 'add', 'only-here.txt');
    git(laptopRepo, 'commit', '-q', '-m', 'Only on the laptop');
    const { handoff } = await tool<{ handoff: HandoffView }>(lead, 'handoff_create', { summary: 'Needs the new base', to: 'builder', workspace: { repo: laptopRepo, host: 'workbox', hostRepo: HOST_REPO } });
    await expect(tool(agent, 'handoff_accept', { handoffId: handoff.id })).rejects.toThrow(/does not have the base commit .*git fetch or git pull/);
    const { handoff: still } = await runner.running.engine.call(runner.running.engine.operator(), 'handoff_get', { handoffId: handoff.id });
    expect(still.status).toBe('open');
    expect(still.workspace?.state).toBe('planned');
    // brought up to date there, the same handoff is accepted
    git(HOST_REPO, '-c', 'safe.directory=*', 'pull', '-q', '--ff-only', laptopRepo, 'main');
    execFileSync('chown', ['-R', `${USER}:`, HOST_REPO]);
    const { handoff: accepted } = await tool<{ handoff: HandoffView }>(agent, 'handoff_accept', { handoffId: handoff.id });
    expect(onHost('workbox', `git -C ${accepted.workspace?.path} rev-parse HEAD`)).toBe(git(laptopRepo, 'rev-parse', 'main'));
    // cancelled: the worktree there goes (nothing in it would be lost)
    await runner.running.engine.call(runner.running.engine.operator(), 'handoff_cancel', { handoffId: handoff.id, reason: 'not needed' });
    expect(onHost('workbox', `test -e ${accepted.workspace?.path} && echo there || echo gone`)).toBe('gone');
  }, 120_000);
});
