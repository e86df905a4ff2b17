/**
 * A watched terminal types nothing by itself into an agent's shell: the queries a program sends (device
 * attributes, cursor position, mode and setting requests, a colour query, focus reporting) get no reply from
 * the person's page, so nothing reaches the shell as the person's input. The room's own screen answers what a
 * terminal answers, once (a program such as Gemini CLI waits for that before it draws). In Chromium against a
 * real room, the agent a real MCP SDK client. Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';
import { terminalText } from './helpers/page-terminal';

let room: UiRoom;
let agent: Client;
const pageErrors: string[] = [];

beforeAll(async () => {
  room = await startUiRoom({ pageErrors });
  agent = room.agents[0] as Client;
}, 60_000);

afterAll(() => room?.close());

describe('terminal queries', () => {
  it("get no answer from the person's page, so nothing is typed into the agent's shell: the room answers each once", async () => {
    const { page, runner } = room;
    const { shell } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { shell: '/bin/bash', args: ['--norc', '--noprofile'], env: { PS1: 'P> ' } });
    await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
    await expect.poll(() => terminalText(page, shell.id)).toContain('P>');
    // the program asks, then waits a moment for answers and prints what it got (as hex)
    const probe = "stty -echo -icanon; printf '\\033[c\\033[>c\\033[6n\\033[5n\\033[?1$p\\033[2$p\\033[18t\\033]11;?\\007\\033P$qm\\033\\\\\\033[?1004h'; sleep 1; echo \"GOT:$(dd bs=1 count=200 iflag=nonblock 2>/dev/null | od -An -c | tr -d ' \\n')\"; echo ASKED-$((1+1)); stty sane";
    await callTool(agent, 'shell_io', { shellId: shell.id, text: `${probe}\n` });
    // the person's page gains and loses focus while the program listens for focus reports
    await page.getByTestId('terminal').click();
    await page.getByRole('button', { name: /Graphs/ }).focus();
    await expect.poll(() => terminalText(page, shell.id), { timeout: 15_000 }).toContain('ASKED-2');
    const listed = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.id === shell.id);
    expect(listed?.lastInput?.by).toBe('agent');
    const io = await callTool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start' });
    const answered = io.output.split(/\r?\n/).find((l) => l.startsWith('GOT:'));
    // one reply each from the room's screen (device attributes, secondary attributes, cursor position, status,
    // two mode reports, a setting report) and none from the page: no second copy, no window size, colour or
    // focus reports
    expect(answered).toMatch(/^GOT:033\[\?1;2c033\[>0;276;0c033\[\d+;\d+R033\[0n033\[\?1;2\$y033\[2;4\$y033P1\$r0m033\\$/);
    expect(pageErrors).toEqual([]);
  });
});
