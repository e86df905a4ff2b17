#!/usr/bin/env node
// The README's screenshots, taken in Chromium from a populated room: a built `commonroom serve` in a throw-away
// home, two agents with tokens of their own (real MCP clients) that open a shell, run a graph and hand a result
// to the person, and the UI signed in through the serve banner's link. Writes docs/images/inbox.png (a result
// waiting for approval), docs/images/graphs.png and docs/images/terminals.png.
// usage: npm run build && node scripts/readme-screenshot.mjs   (needs /usr/bin/chromium)
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../bench/benchmarks/ui.js';
import { callTool, closeAll, connect } from '../bench/lib/clients.js';
import { addParticipant, makeHome, REPO, startRoom } from '../bench/lib/room.js';

const OUT = path.join(REPO, 'docs/images');
const home = makeHome('screenshot');
const room = await startRoom(home);
const clients = [];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
try {
  const person = await connect('2026', room.url, room.token, 'person');
  const claude = await connect('2026', room.url, addParticipant(home, 'claude', 'read,write'), 'claude-code');
  const codex = await connect('2026', room.url, addParticipant(home, 'codex', 'read,write'), 'codex');
  clients.push(person, claude, codex);

  // a shell an agent works in, with some output
  const { shell } = await callTool(claude, 'shell_open', { name: 'parser tests', shell: '/bin/sh', args: [], env: { PS1: '$ ', TERM: 'xterm-256color', PATH: process.env.PATH } });
  const command = 'for t in header body trailer; do echo "parse $t ... ok"; done; echo "3 passed"\n';
  await callTool(claude, 'shell_io', { shellId: shell.id, text: command, wait: { until: 'match', pattern: '^3 passed', timeoutMs: 5000 } });
  // a graph that ran, with a stage that failed and one skipped after it
  const { graphId } = await callTool(codex, 'tasks_run', {
    name: 'ci',
    maxParallel: 2,
    stages: [
      { id: 'install', command: ['true'] },
      { id: 'lint', command: 'echo lint clean', dependsOn: ['install'] },
      { id: 'unit', command: 'echo 41 passed', dependsOn: ['install'] },
      { id: 'build', command: 'echo built', dependsOn: ['lint', 'unit'] },
      { id: 'e2e', command: 'echo "1 failed: login page"; exit 1', dependsOn: ['build'] },
      { id: 'package', command: 'echo packed', dependsOn: ['e2e'] },
    ],
  });
  await callTool(codex, 'tasks_status', { graphId, stages: false, waitMs: 20_000, until: 'ended' });
  // handoffs: one the person asked for, done and waiting for approval; one an agent asked the person about
  const { handoff } = await callTool(person, 'handoff_create', { summary: 'Make the parser accept a trailing comma in header lists', to: 'claude' });
  await callTool(claude, 'handoff_accept', { handoffId: handoff.id });
  await callTool(claude, 'handoff_complete', {
    handoffId: handoff.id,
    result: '## Done\n\nThe header parser now accepts a trailing comma (`a, b,`).\n\n- `parseList` skips an empty last item\n- 3 new cases in `test/header.test.ts`, all passing\n\nNothing else changed.',
  });
  const second = await callTool(codex, 'handoff_create', { summary: 'Review the failing e2e stage of ci', to: 'claude' });
  await callTool(claude, 'handoff_accept', { handoffId: second.handoff.id });

  const uiUrl = /open the UI:\s+(\S+)/.exec(room.output())?.[1];
  if (!uiUrl) throw new Error(`the serve banner names no UI address:\n${room.output()}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  await page.goto(uiUrl);
  await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
  fs.mkdirSync(OUT, { recursive: true });

  await page.getByRole('button', { name: 'Inbox' }).click();
  await page.locator(`button.inbox-item[data-handoff-id="${handoff.id}"]`).click();
  await page.getByRole('button', { name: /^Approve/ }).waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(OUT, 'inbox.png') });

  await page.getByRole('button', { name: 'Graphs' }).click();
  await page.getByText('ci', { exact: true }).first().click();
  await page.locator('.react-flow__node').first().waitFor();
  await page.waitForTimeout(800);
  await page.screenshot({ path: path.join(OUT, 'graphs.png') });

  await page.getByRole('button', { name: 'Terminals' }).click();
  await page.getByText('parser tests').first().click();
  await page.getByText('3 passed').first().waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(OUT, 'terminals.png') });
  console.log(`written: ${['inbox', 'graphs', 'terminals'].map((n) => path.relative(process.cwd(), path.join(OUT, `${n}.png`))).join(', ')}`);
} finally {
  await browser.close();
  await closeAll(clients);
  await room.stop();
  home.cleanup();
}
