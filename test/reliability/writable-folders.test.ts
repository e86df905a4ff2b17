/**
 * The folders the person lets an agent write besides its working folder (issue 40, Deliver 3): set through
 * the HTTP API `ce` and the app use (participant_folders), only by the operator (an agent with operate may
 * take folders back, never add one, not even for itself), never offered to agents as an MCP tool, each
 * change an event and an audit entry. Every refusal says what to give instead. And `ce participant folders`
 * itself, on a room no process serves.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writableFoldersFor } from '../../src-main/engine/people/participant-folders';
import { roomStateDir } from '../../src-main/engine/core/room-paths';
import { detectSandbox } from '../../src-main/engine/process/agent-sandbox';
import { callTool, connectWithToken } from '../e2e/helpers/ui-room';
import { BIN_CE, makeHome } from '../helpers/env';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { runCe } from '../helpers/serve';

let runner: TestRunner;
let work: string;
let agentToken: string;
let adminToken: string;

interface Answer {
  status: number;
  body: { result?: { folders: string[]; changed: boolean; participant: { writableFolders: string[] } }; error?: { code: string; message: string } };
}

async function api(token: string, method: string, body: unknown): Promise<Answer> {
  const res = await fetch(new URL(`/api/${method}`, runner.running.baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const folders = (token: string, input: Record<string, unknown>) => api(token, 'participant_folders', input);

beforeAll(async () => {
  runner = await startTestRunner();
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-folders-')));
  const tokenOf = async (name: string, capabilities: string[]) => ((await api(runner.token, 'participant_add', { name, capabilities })).body.result as unknown as { token: string }).token;
  agentToken = await tokenOf('builder', ['read', 'write']);
  adminToken = await tokenOf('admin-agent', ['read', 'write', 'operate']);
}, 60_000);

afterAll(async () => {
  await runner?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('participant_folders', () => {
  it('the operator adds, lists and removes a folder; the participant list shows it; each change is an event and an audit entry', async () => {
    const site = path.join(work, 'site');
    fs.mkdirSync(site);
    const linked = path.join(work, 'link-to-site');
    fs.symlinkSync(site, linked);
    const added = await folders(runner.token, { name: 'builder', add: linked });
    expect(added.status).toBe(200);
    expect(added.body.result).toMatchObject({ folders: [site], changed: true }); // stored as its real path
    expect((await folders(runner.token, { name: 'builder', add: site })).body.result).toMatchObject({ folders: [site], changed: false });
    expect((await folders(runner.token, { name: 'builder' })).body.result?.folders).toEqual([site]);
    const list = (await api(runner.token, 'participant_list', {})).body.result as unknown as { participants: { name: string; writableFolders: string[] }[] };
    expect(list.participants.find((p) => p.name === 'builder')?.writableFolders).toEqual([site]);
    const { room } = runner.running.engine;
    expect(room.participants.writableFolders('builder')).toEqual([site]);
    expect(writableFoldersFor(room.participants, 'builder')).toEqual([site]);

    const removed = await folders(runner.token, { name: 'builder', remove: site });
    expect(removed.body.result).toMatchObject({ folders: [], changed: true });
    const events = room.events.latestOfKind('participant.folders_changed', 10);
    expect(events.map((e) => [e.actor, e.subject, e.data])).toEqual([
      ['operator', 'builder', { removed: site, folders: [] }],
      ['operator', 'builder', { added: site, folders: [site] }],
    ]);
    const audit = await runner.running.engine.call(runner.running.engine.operator(), 'audit_list', { limit: 50 });
    expect(audit.entries.filter((e) => e.method === 'participant_folders').length).toBeGreaterThanOrEqual(4);
  });

  it('an agent never widens itself: without operate it may not call it; with operate it may take folders back, not add', async () => {
    const site = path.join(work, 'mine');
    fs.mkdirSync(site);
    const self = await folders(agentToken, { name: 'builder', add: site });
    expect(self.status).toBe(403);
    const admin = await folders(adminToken, { name: 'admin-agent', add: site });
    expect(admin.status).toBe(403);
    expect(admin.body.error?.message).toMatch(/only the operator lets an agent write more folders/);
    expect((await folders(adminToken, { name: 'builder', add: site })).status).toBe(403);
    expect((await folders(runner.token, { name: 'builder', add: site })).status).toBe(200);
    const narrowed = await folders(adminToken, { name: 'builder', remove: site });
    expect(narrowed.body.result).toMatchObject({ folders: [], changed: true });
    // and agents are never offered it as a tool
    const client = await connectWithToken(runner.running, agentToken);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    expect(tools).toContain('shell_open');
    expect(tools).not.toContain('participant_folders');
  });

  it('refuses what would open the room or the whole machine, each refusal saying what to give', async () => {
    const { paths, location } = runner.running.engine.room;
    const file = path.join(work, 'a-file');
    fs.writeFileSync(file, 'x');
    fs.mkdirSync(path.join(roomStateDir(location.markdownPath), 'logs'), { recursive: true });
    const otherRoomState = path.join(roomStateDir(path.join(work, 'notes.md')), 'logs');
    fs.mkdirSync(otherRoomState, { recursive: true });
    const cases: [string, RegExp][] = [
      ['relative/folder', /not an absolute path: give the full path of a folder/],
      [path.join(work, 'missing'), /does not exist: create the folder first/],
      [file, /is a file, not a folder/],
      ['/', /is the whole file system: give the one folder/],
      [os.homedir(), /is your home folder itself .*: give a folder inside it/],
      [paths.configDir, /inside Commonroom's config folder .*give a folder outside it/],
      [path.join(paths.dataDir, 'rooms'), /inside Commonroom's data folder .*give a folder outside it/],
      [path.dirname(paths.dataDir), /holds Commonroom's (config|data) folder .*give a folder that does not contain it/],
      [path.join(roomStateDir(location.markdownPath), 'logs'), /inside (Commonroom's data folder|a room's state folder) .*give a folder outside it/],
      [otherRoomState, /inside a room's state folder .*give a folder outside it/],
    ];
    for (const [given, message] of cases) {
      const r = await folders(runner.token, { name: 'builder', add: given });
      expect(r.status, given).toBe(400);
      expect(r.body.error?.message, given).toMatch(message);
    }
    expect((await folders(runner.token, { name: 'builder', add: `${work}\0x` })).body.error?.message).toMatch(/NUL/);
    expect((await folders(runner.token, { name: 'builder', add: work, remove: work })).body.error?.message).toMatch(/add or remove, not both/);
    expect((await folders(runner.token, { name: 'operator', add: work })).body.error?.message).toMatch(/operator's own shells are not sandboxed/);
    expect((await folders(runner.token, { name: 'nobody', add: work })).status).toBe(404);
    expect((await folders(runner.token, { name: 'builder', remove: path.join(work, 'never-added') })).body.error?.message).toMatch(/is not one of builder's writable folders: see "ce participant folders builder"/);
    expect(runner.running.engine.room.participants.writableFolders('builder')).toEqual([]);
  });

  it('a folder removed or made a symlink since it was added is left out at launch; a revoked name added again starts with none', async () => {
    const gone = path.join(work, 'gone');
    const swapped = path.join(work, 'swapped');
    const kept = path.join(work, 'kept');
    for (const d of [gone, swapped, kept]) fs.mkdirSync(d);
    for (const d of [gone, swapped, kept]) expect((await folders(runner.token, { name: 'builder', add: d })).status).toBe(200);
    fs.rmSync(gone, { recursive: true });
    fs.rmSync(swapped, { recursive: true });
    fs.symlinkSync('/etc', swapped);
    const { participants } = runner.running.engine.room;
    expect(writableFoldersFor(participants, 'builder')).toEqual([kept]);
    await api(runner.token, 'participant_revoke', { name: 'builder' });
    expect((await folders(runner.token, { name: 'builder', add: kept })).status).toBe(409);
    await api(runner.token, 'participant_add', { name: 'builder', capabilities: ['read'] });
    expect(participants.writableFolders('builder')).toEqual([]);
  });
});

describe('ce participant folders', () => {
  it('lists, adds (~ and relative paths made absolute where typed) and removes, on a room no process serves', () => {
    const home = makeHome();
    try {
      expect(runCe(home, ['init']).status).toBe(0);
      expect(runCe(home, ['participant', 'add', 'claude', '--can', 'read,write']).status).toBe(0);
      const site = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ce-site-')));
      try {
        expect(runCe(home, ['participant', 'folders', 'claude']).stdout).toBe('claude writes only its working folder, temp folders and tool caches\n');
        const added = runCe(home, ['participant', 'folders', 'claude', '--add', site]);
        expect(added).toMatchObject({ status: 0, stdout: `claude may now write ${site}\nclaude writes its working folder, temp folders and tool caches, and:\n  ${site}\n` });
        const json = JSON.parse(runCe(home, ['participant', 'folders', 'claude', '--json']).stdout) as { folders: string[] };
        expect(json.folders).toEqual([site]);
        const refused = runCe(home, ['participant', 'folders', 'claude', '--add', '/']);
        expect(refused.status).not.toBe(0);
        expect(refused.stderr).toMatch(/\/ is the whole file system: give the one folder/);
        expect(runCe(home, ['participant', 'folders', 'claude', '--add', site, '--remove', site]).status).toBe(2);
        expect(runCe(home, ['participant', 'folders', 'claude', '--remove', site]).stdout).toContain(`claude no longer writes ${site}`);
        // as typed in the person's shell: relative to where they are, ~ their home
        fs.mkdirSync(path.join(site, 'sub'));
        const ce = (args: string[], env: NodeJS.ProcessEnv = home.env) => spawnSync(process.execPath, [BIN_CE, ...args], { env, cwd: site, encoding: 'utf8', timeout: 20_000 });
        expect(ce(['participant', 'folders', 'claude', '--add', 'sub']).stdout).toContain(`claude may now write ${path.join(site, 'sub')}`);
        expect(ce(['participant', 'folders', 'claude', '--add', '~/sub'], { ...home.env, HOME: site }).stdout).toContain(`claude could already write ~/sub`);
        expect(runCe(home, ['participant', 'folders']).status).toBe(2);
      } finally {
        fs.rmSync(site, { recursive: true, force: true });
      }
    } finally {
      home.cleanup();
    }
  }, 60_000);
});

/** The home folder is read-only to agents (but for its caches and clients' state), unless it is a temp folder itself. */
const homeIsTemp = ['/tmp', '/var/tmp', '/dev/shm', os.tmpdir()].some((t) => os.homedir() === t || os.homedir().startsWith(`${t}/`));
const noWidening = detectSandbox().kind !== 'bubblewrap' ? 'no bubblewrap sandbox here' : homeIsTemp ? `the home folder ${os.homedir()} is a temp folder, writable to agents anyway` : '';

describe.skipIf(noWidening !== '')(`a folder the person adds is writable from the agent's next shell, and only then${noWidening ? ` (skipped: ${noWidening})` : ''}`, () => {
  it('outside the temp folders: refused (read-only) before it is added, written after, refused again once removed', async () => {
    // the temp folders are writable for every agent: the folder must be elsewhere to show anything (the home)
    const outside = fs.mkdtempSync(path.join(os.homedir(), '.commonroom-test-widen-'));
    const added = (await api(runner.token, 'participant_add', { name: 'widened', capabilities: ['read', 'write'] })).body.result as unknown as { token: string };
    const agent = await connectWithToken(runner.running, added.token);
    const own = path.join(work, 'own');
    fs.mkdirSync(own, { recursive: true });
    const tryWrite = async (name: string) => {
      const { shell } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { shell: '/bin/sh', cwd: own });
      const run = await callTool<{ output: string; exitCode: number | null }>(agent, 'shell_run', { shellId: shell.id, command: `echo hi > '${path.join(outside, name)}' && echo WROTE`, timeoutMs: 20_000 });
      await callTool(agent, 'shell_close', { shellId: shell.id });
      return run;
    };
    try {
      const before = await tryWrite('before');
      expect(before.output).toMatch(/Read-only file system/);
      expect(fs.existsSync(path.join(outside, 'before'))).toBe(false);
      expect((await folders(runner.token, { name: 'widened', add: outside })).status).toBe(200);
      expect((await tryWrite('added')).output).toContain('WROTE');
      expect(fs.readFileSync(path.join(outside, 'added'), 'utf8')).toBe('hi\n');
      expect((await folders(runner.token, { name: 'widened', remove: outside })).status).toBe(200);
      expect((await tryWrite('removed')).output).toMatch(/Read-only file system/);
    } finally {
      await agent.close();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
