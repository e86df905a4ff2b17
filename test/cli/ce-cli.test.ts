import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUNNER_VERSION } from '../../src-main/common/version';
import { BIN_CE, makeHome, type TestHome } from '../helpers/env';
import { seedRoomFile } from '../helpers/room-file';
import { runCe, runCommonroom, startServe, stopServe } from '../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** Every file under a folder (that may not exist). */
const filesUnder = (dir: string): string[] => (fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]) : []);

describe('ce help, version and usage errors', () => {
  it('ce --help lists every command; each command has its own --help with a synopsis and examples', () => {
    const all = runCe(home, ['--help']);
    expect(all.status).toBe(0);
    const names = [...all.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1] as string);
    expect(names).toEqual(expect.arrayContaining(['init', 'handoffs', 'answer', 'handoff-cancel', 'logs', 'shell', 'run', 'participant']));
    for (const name of names) {
      const one = runCe(home, [name, '--help']);
      expect(one.status, name).toBe(0);
      expect(one.stdout, name).toMatch(new RegExp(`^usage: ce ${name}\\b`));
      expect(one.stdout, name).toContain('examples:');
      expect(one.stdout, name).toContain('-h, --help');
      expect(runCe(home, ['help', name]).stdout).toBe(one.stdout);
    }
    // asking for help never touches a room
    expect(filesUnder(home.root)).toEqual([]);
  }, 120_000);

  it('--version prints the version; unknown options and commands are usage errors (exit 2) that say what to do', () => {
    expect(runCe(home, ['--version'])).toMatchObject({ status: 0, stdout: `${RUNNER_VERSION}\n` });
    const bad = runCe(home, ['approve', 'h_1', '--reasn', 'x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown option --reasn \(known: --reason, --merge, --room, --json, --help\); see "ce approve --help"/);
    const missing = runCe(home, ['approve', 'h_1', '--reason']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--reason needs a value/);
    const unknown = runCe(home, ['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate": run "ce --help"/);
    expect(runCe(home, []).status).toBe(2);
  });
});

describe('a room is created only on purpose', () => {
  it('a mistyped --room is refused with the fix, and nothing is created: no markdown, no database, no token', () => {
    const typo = path.join(home.root, 'projcet.md');
    for (const args of [['info'], ['participant', 'add', 'x', '--can', 'read'], ['handoffs'], ['approve', 'h_1']]) {
      const r = runCe(home, [...args, '--room', typo]);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`no room at ${typo}: start it with "commonroom serve --room ${typo}", or create it with "ce init --room ${typo}"`);
    }
    // and the default room is not made behind your back either
    const dflt = runCe(home, ['participant', 'add', 'x', '--can', 'read']);
    expect(dflt.status).toBe(1);
    expect(dflt.stderr).toMatch(/no room at .*default\.md \(your default room\): start it with "commonroom serve"/);
    expect(filesUnder(home.root)).toEqual([]);

    const init = runCe(home, ['init', '--room', typo]);
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain(`created the room ${typo}`);
    expect(fs.existsSync(`${typo}.commonroom.db`)).toBe(true);
    expect(runCe(home, ['init', '--room', typo]).stdout).toContain('already exists: nothing changed');
    expect(runCe(home, ['participant', 'add', 'x', '--can', 'read', '--room', typo]).status).toBe(0);
  });
});

describe('ce --json is complete when piped', () => {
  it('ce handoffs --json | wc -c equals the size written to a file, for more than 1 MiB of handoffs', async () => {
    await seedRoomFile(home, { alice: ['read', 'write'] }, async (engine, { alice }) => {
      for (let i = 0; i < 200; i++) {
        const { handoff } = await engine.call(alice, 'handoff_create', { summary: `handoff ${i}`, constraints: `${i} `.padEnd(7_000, 'x') });
        // cancelled at once: at most 32 handoff tasks may be working in a room
        await engine.call(alice, 'handoff_cancel', { handoffId: handoff.id });
      }
    });
    const file = path.join(home.root, 'handoffs.json');
    const sh = (script: string) => spawnSync('/bin/sh', ['-c', script], { env: home.env, encoding: 'utf8', timeout: 60_000 });
    const written = sh(`'${process.execPath}' '${BIN_CE}' handoffs --json > '${file}'`);
    expect(written.status, written.stderr).toBe(0);
    const size = fs.statSync(file).size;
    expect(size).toBeGreaterThan(1024 * 1024);
    // a pipe is asynchronous: the process must not exit before the reader took every byte
    const counted = sh(`'${process.execPath}' '${BIN_CE}' handoffs --json | wc -c`);
    expect(counted.status, counted.stderr).toBe(0);
    expect(Number(counted.stdout.trim())).toBe(size);
    // and a slow reader gets all of it too
    const slow = sh(`'${process.execPath}' '${BIN_CE}' handoffs --json | (sleep 1; cat) | wc -c`);
    expect(Number(slow.stdout.trim())).toBe(size);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as { handoffs: unknown[] }).handoffs).toHaveLength(200);
  }, 120_000);
});

describe('commonroom serve: a safe first connection', () => {
  it('the banner never hands the operator token to an agent: it shows ce participant add and a snippet with the agent\'s own token', async () => {
    const serve = await startServe(home);
    try {
      const banner = serve.output();
      expect(banner).not.toContain(serve.token);
      expect(banner).not.toMatch(/\$\(cat [^)]*operator\.token\)/);
      // the ce that works here: this checkout's launcher by its path (no ce of ours on the PATH), never npx ce
      expect(banner).toContain(`node ${path.resolve(__dirname, '../../bin/ce.js')} participant add claude --can read,write`);
      expect(banner).not.toContain('npx ce');
      expect(banner).toContain(`claude mcp add --transport http --scope user commonroom ${serve.mcpUrl} --header "Authorization: Bearer <its token>"`);
      expect(banner).toMatch(/never give it to an agent/);

      const added = runCe(home, ['participant', 'add', 'claude', '--can', 'read,write']);
      expect(added.status, added.stderr).toBe(0);
      const token = /token \(shown once, store it now\): (cr_\S+)/.exec(added.stdout)?.[1] as string;
      expect(added.stdout).toContain(`claude mcp add --transport http --scope user commonroom ${serve.mcpUrl} --header "Authorization: Bearer ${token}"`);
      expect(added.stdout).toContain(`gemini mcp add --transport http --scope user commonroom ${serve.mcpUrl} --header "Authorization: Bearer ${token}"`);
      expect(added.stdout).toContain(`opencode mcp add commonroom --url ${serve.mcpUrl} --header "Authorization=Bearer ${token}"`);
      for (const client of ['Claude Desktop', 'Cursor', 'Codex', 'Gemini CLI', 'opencode', 'Generic HTTP']) expect(added.stdout).toContain(`${client} — `);
      expect(added.stdout).toContain(`"COMMONROOM_AUTH": "Bearer ${token}"`); // Claude Desktop, through mcp-remote
      expect(added.stdout).toMatch(/OAuth/);
      expect(added.stdout).not.toContain(serve.token);
    } finally {
      await stopServe(serve);
    }
  }, 60_000);

  it('a second serve names the holder and its endpoint', async () => {
    const serve = await startServe(home);
    try {
      const r = runCommonroom(home, ['serve', '--port', '0']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`pid ${serve.proc.pid}`);
      expect(r.stderr).toContain(`serving ${new URL('/', serve.mcpUrl).toString()}`);
    } finally {
      await stopServe(serve);
    }
  }, 60_000);
});
