import pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN_CE, makeHome, type TestHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';

/** `ce shell attach` in a real pseudo-terminal, as a person's terminal runs it: what it shows, and how it ends. */
interface Terminal {
  term: pty.IPty;
  screen(): string;
  /** Output from `from` (an offset into everything shown) on. */
  since(from: number): string;
  exited: Promise<number>;
}

function openTerminal(home: TestHome, command: string): Terminal {
  // a wrapper shell: after ce ends, `stty -a` shows what ce left the terminal in
  const term = pty.spawn('/bin/sh', ['-c', command], { name: 'xterm-256color', cols: 100, rows: 30, env: home.env as Record<string, string> });
  let out = '';
  term.onData((d) => (out += d));
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  return { term, screen: () => out, since: (from) => out.slice(from), exited };
}

async function api<T>(serve: ServeProcess, method: string, body: unknown, token = serve.token): Promise<T> {
  const r = await fetch(new URL(`/api/${method}`, serve.mcpUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await r.json()) as { result?: T; error?: { message: string } };
  if (!json.result) throw new Error(json.error?.message ?? `HTTP ${r.status}`);
  return json.result;
}

/**
 * `ce shell attach NAME` in a terminal, then what the terminal looks like after it. `hold`: the terminal waits
 * for one more line before it ends, so its last output is read before the PTY closes (node-pty may lose output
 * a process writes just before it exits, which a loaded machine showed).
 */
const attachCommand = (name: string, hold = false) =>
  `'${process.execPath}' '${BIN_CE}' shell attach ${name}; echo "CE-EXIT=$?"; stty -a${hold ? '; echo STTY-DONE; read _' : ''}`;

describe('ce shell attach', () => {
  let home: TestHome;
  let serve: ServeProcess;
  beforeEach(async () => {
    home = makeHome();
    serve = await startServe(home);
  });
  afterEach(async () => {
    await stopServe(serve);
    home.cleanup();
  });

  it('types into a live shell, follows a resize, passes Ctrl-C on, detaches with Ctrl-] and restores the terminal', async () => {
    const { shell } = await api<{ shell: { id: string } }>(serve, 'shell_open', { name: 'work', shell: '/bin/sh', env: { PS1: 'READY$ ' } });
    const t = openTerminal(home, attachCommand('work', true));
    try {
      await expect.poll(() => t.screen(), { timeout: 20_000 }).toContain('attached to work');
      await expect.poll(() => t.screen(), { timeout: 20_000 }).toContain('READY$ ');
      // the shell took the terminal's size on attach, and follows it
      const size = async () => (await api<{ shells: { id: string; cols: number; rows: number }[] }>(serve, 'shell_list', {})).shells.find((s) => s.id === shell.id);
      await expect.poll(size, { timeout: 10_000 }).toMatchObject({ cols: 100, rows: 30 });
      t.term.resize(120, 40);
      await expect.poll(size, { timeout: 10_000 }).toMatchObject({ cols: 120, rows: 40 });

      let mark = t.screen().length;
      t.term.write("echo 'HEL''LO' from-attach\r");
      await expect.poll(() => t.since(mark), { timeout: 10_000 }).toMatch(/HELLO from-attach\r*\n/);
      await expect.poll(() => t.since(mark), { timeout: 10_000 }).toContain('READY$ ');

      // raw mode: Ctrl-C goes to the shell (it interrupts sleep), not to ce
      mark = t.screen().length;
      t.term.write("sleep 30; echo 'NOT''-INTERRUPTED'\r");
      await expect.poll(() => t.since(mark), { timeout: 10_000 }).toContain('sleep 30');
      t.term.write('\x03');
      await expect.poll(() => t.since(mark), { timeout: 10_000 }).toMatch(/READY\$ $/);
      mark = t.screen().length;
      t.term.write("echo 'STILL''-HERE'\r");
      await expect.poll(() => t.since(mark), { timeout: 10_000 }).toContain('STILL-HERE');
      expect(t.screen()).not.toContain('NOT-INTERRUPTED');

      t.term.write('\x1d'); // Ctrl-]
      await expect.poll(() => t.screen(), { timeout: 10_000 }).toContain('CE-EXIT=0');
      expect(t.screen()).toContain('detached from work');
      expect(t.screen()).toContain('\x1b[?1049l'); // an alternate screen a program left on is switched off
      // after ce: the terminal is back in cooked mode with echo (stty prints "-icanon"/"-echo" when they are off)
      await expect.poll(() => t.screen(), { timeout: 20_000 }).toContain('STTY-DONE');
      const stty = t.screen().slice(t.screen().indexOf('CE-EXIT=0'));
      expect(stty).toMatch(/\bicanon\b/);
      expect(stty).not.toMatch(/-icanon\b/);
      expect(stty).not.toMatch(/(^|\s)-echo(\s|$)/);
      t.term.write('\r'); // a line in cooked mode ends the terminal's `read`
      expect(await t.exited).toBe(0);
      // the shell lives on after a detach
      expect(await size()).toBeDefined();
      expect((await api<{ shells: { id: string; alive: boolean }[] }>(serve, 'shell_list', {})).shells.find((s) => s.id === shell.id)?.alive).toBe(true);
    } finally {
      t.term.kill();
    }
  }, 90_000);

  it("keeps an agent's shell at the agent's size (its programs never see the watcher's terminal), unless --take-over", async () => {
    const added = runCe(home, ['participant', 'add', 'bot', '--can', 'read,write', '--json']);
    const token = (JSON.parse(added.stdout) as { token: string }).token;
    const { shell } = await api<{ shell: { id: string } }>(serve, 'shell_open', { name: 'bots', shell: '/bin/sh', env: { PS1: 'READY$ ' }, cols: 90, rows: 20 }, token);
    const size = async () => (await api<{ shells: { id: string; cols: number; rows: number }[] }>(serve, 'shell_list', {})).shells.find((s) => s.id === shell.id);
    const watching = openTerminal(home, attachCommand('bots'));
    try {
      await expect.poll(() => watching.screen(), { timeout: 20_000 }).toContain("it keeps bot's size, 90x20");
      watching.term.resize(120, 40);
      watching.term.write('stty size\r');
      await expect.poll(() => watching.screen(), { timeout: 10_000 }).toContain('20 90');
      expect(await size()).toMatchObject({ cols: 90, rows: 20 });
      watching.term.write('\x1d');
      await expect.poll(() => watching.screen(), { timeout: 10_000 }).toContain('CE-EXIT=0');
    } finally {
      watching.term.kill();
    }
    const taking = openTerminal(home, `'${process.execPath}' '${BIN_CE}' shell attach bots --take-over; echo "CE-EXIT=$?"`);
    try {
      await expect.poll(() => taking.screen(), { timeout: 20_000 }).toContain('attached to bots');
      await expect.poll(size, { timeout: 10_000 }).toMatchObject({ cols: 100, rows: 30 });
      taking.term.write('\x1d');
      await expect.poll(() => taking.screen(), { timeout: 10_000 }).toContain('CE-EXIT=0');
    } finally {
      taking.term.kill();
    }
  }, 60_000);

  it('ends when the shell exits, saying how; unknown shells and a missing room process are clear errors', async () => {
    await api(serve, 'shell_open', { name: 'brief', shell: '/bin/sh', env: { PS1: 'READY$ ' } });
    const t = openTerminal(home, attachCommand('brief'));
    try {
      await expect.poll(() => t.screen(), { timeout: 20_000 }).toContain('READY$ ');
      t.term.write('exit 3\r');
      await expect.poll(() => t.screen(), { timeout: 10_000 }).toContain('CE-EXIT=0');
      expect(t.screen()).toContain('[shell brief exited with code 3]');
      expect(await t.exited).toBe(0);
    } finally {
      t.term.kill();
    }
    const missing = openTerminal(home, attachCommand('nope'));
    await expect.poll(() => missing.screen(), { timeout: 20_000 }).toContain('CE-EXIT=1');
    expect(missing.screen()).toMatch(/no shell "nope" in this room; its shells: brief/);
  }, 60_000);
});
