#!/usr/bin/env node
// `npm run smoke:desktop`: the real desktop app, where Electron's binary can start. Launches it with
// playwright-core's Electron launcher (against node_modules/electron, on Linux under xvfb-run when there is no
// display), checks its window reaches "connected", then has an agent (a real MCP client with a token of its
// own) open a shell and checks the window lists it. On a machine without Electron's binary it says so and
// exits 0: `npm test` covers the same window through test/harness/electron instead.
/* global document */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from '../bin/electron-binary.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronPkg = path.join(root, 'node_modules', 'electron');

const binary = electronBinary(electronPkg);
if (!binary) {
  console.log("smoke:desktop skipped: Electron's binary is not installed here (node_modules/electron/dist).");
  console.log('  It comes from Electron\'s installer (node node_modules/electron/install.js, Node >= 22.12, needs network);');
  console.log('  npm test covers the window through the Electron harness (test/harness/electron) instead.');
  process.exit(0);
}

if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY && !process.env.SMOKE_UNDER_XVFB) {
  const xvfb = spawnSync('xvfb-run', ['-a', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, SMOKE_UNDER_XVFB: '1' } });
  if (xvfb.error) {
    console.error('smoke:desktop: there is no display and xvfb-run is missing (apt-get install xvfb)');
    process.exit(1);
  }
  process.exit(xvfb.status ?? 1);
}

// better-sqlite3 for Electron's ABI, apart from node_modules (bin/electron-native.js), as npm start makes it
const native = spawnSync(process.execPath, [path.join(root, 'bin', 'electron-native.js')], { stdio: 'inherit' });
if (native.status !== 0) {
  console.error('smoke:desktop: could not build better-sqlite3 for Electron (see above)');
  process.exit(1);
}

const { _electron } = await import('playwright-core');
const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');

const home = mkdtempSync(path.join(os.tmpdir(), 'commonroom-smoke-'));
const env = {
  ...process.env,
  COMMONROOM_DATA_DIR: path.join(home, 'data'),
  COMMONROOM_CONFIG_DIR: path.join(home, 'config'),
  COMMONROOM_ROOM: path.join(home, 'room.md'),
  COMMONROOM_PORT: '0',
};
const step = (what) => console.log(`smoke:desktop: ${what}`);
let app;
let failed = false;
try {
  step(`launching ${binary}`);
  app = await _electron.launch({ executablePath: binary, args: [root, ...(process.platform === 'linux' ? ['--no-sandbox'] : [])], env, timeout: 60_000 });
  const win = await app.firstWindow();
  await win.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 30_000 });
  step('the window reached "connected"');
  const added = spawnSync(process.execPath, [path.join(root, 'bin', 'ce.js'), 'participant', 'add', 'smoke-agent', '--can', 'read,write', '--json'], { env, encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`ce participant add failed: ${added.stderr}`);
  const { token } = JSON.parse(added.stdout);
  const endpoint = await win.evaluate(() => document.querySelector('.sidebar-foot')?.textContent ?? '');
  const mcpUrl = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(endpoint)?.[0];
  if (!mcpUrl) throw new Error(`the window shows no endpoint (${JSON.stringify(endpoint)})`);
  const agent = new Client({ name: 'smoke', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const opened = await agent.callTool({ name: 'shell_open', arguments: { name: 'smoke shell' } });
  const shellId = opened.structuredContent?.shell?.id;
  if (!shellId) throw new Error(`shell_open answered ${JSON.stringify(opened)}`);
  await win.locator(`.shell-item[data-shell-id="${shellId}"]`).waitFor({ timeout: 15_000 });
  step(`the window lists the shell the agent opened (${shellId})`);
  await win.screenshot({ path: path.join(root, 'test-output', 'smoke-desktop.png') });
  await agent.close();
} catch (error) {
  failed = true;
  console.error(`smoke:desktop FAILED: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await app?.close().catch(() => undefined);
  rmSync(home, { recursive: true, force: true });
}
step(failed ? 'failed' : 'passed');
process.exit(failed ? 1 : 0);
