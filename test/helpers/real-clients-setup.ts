import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { cacheDir, installedBin, OPT_OUT_VARIABLE } from './real-clients';

/**
 * The test set-up (vitest globalSetup) that makes a fresh checkout's `npm test` test the real agent CLIs: when a
 * test file of the run needs them (it imports helpers/real-clients) and they are neither in test/clients/node_modules
 * nor in the cache, installs them once from the npm registry into the cache outside the checkout, at the versions
 * test/clients/package.json and its lock file pin. Opted out (COMMONROOM_TEST_CLIENTS=skip), registry unreachable,
 * or install failed or too slow: nothing is installed and the tests that need them skip, each saying why and how to
 * run them (the reason is handed to them through vitest's provide/inject).
 */

const CLIENTS_DIR = path.resolve(__dirname, '..', 'clients');
/** The whole install: ~1.1 GB from the registry takes 1–3 minutes on a good line. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;
/** One look-up of a pinned package first, so an unreachable registry is told in seconds, not after npm's retries. */
const PROBE_TIMEOUT_MS = 30_000;

export default async function setup(project: TestProject): Promise<void> {
  if (installedBin()) return;
  if (!(await runNeedsClients(project))) return;
  const skip = (why: string): void => {
    console.log(`[real clients] not installed: ${why}; the tests that need them are skipped`);
    project.provide('realClientsSkip', why);
  };
  if (process.env[OPT_OUT_VARIABLE] === 'skip') return skip(`${OPT_OUT_VARIABLE}=skip`);
  const target = cacheDir();
  const pkg = JSON.parse(fs.readFileSync(path.join(CLIENTS_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const [probeName, probeVersion] = Object.entries(pkg.dependencies)[0] ?? [];
  const probe = await run('npm', ['view', `${probeName}@${probeVersion}`, 'version'], process.cwd(), PROBE_TIMEOUT_MS);
  if (probe.error) return skip(`the npm registry did not answer (${probe.error})`);

  console.log(`[real clients] installing the pinned agent CLIs (test/clients/package.json) from the npm registry into ${target}: ~1.1 GB, once, usually 1–3 minutes (${OPT_OUT_VARIABLE}=skip skips them instead)`);
  const started = Date.now();
  const temp = `${target}.partial-${process.pid}`;
  fs.rmSync(temp, { recursive: true, force: true });
  fs.mkdirSync(temp, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(CLIENTS_DIR, file), path.join(temp, file));
  // npm install, not npm ci: opencode-ai names its platform packages with empty versions, which a lock file cannot
  // hold, so npm ci refuses it; with the lock file beside it npm install installs exactly the locked versions
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--fetch-retries=1'], temp, INSTALL_TIMEOUT_MS);
  if (install.error) {
    fs.rmSync(temp, { recursive: true, force: true });
    return skip(`installing them into ${target} failed (${install.error})`);
  }
  try {
    fs.renameSync(temp, target);
  } catch {
    // another run installed the same versions meanwhile: keep its copy
    fs.rmSync(temp, { recursive: true, force: true });
  }
  if (!installedBin()) return skip(`installed into ${target}, but its node_modules/.bin lacks a pinned command`);
  console.log(`[real clients] installed in ${Math.round((Date.now() - started) / 1000)} s into ${target}`);
}

/**
 * True when a test file of this run imports the real-clients helper (a run of other files installs nothing). The
 * run's file filters are Vitest's `filenamePattern` (set before the set-up runs, not in its typed API): without
 * them every file counts, so the clients are installed rather than silently left out.
 */
async function runNeedsClients(project: TestProject): Promise<boolean> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles.some((file) => /helpers\/real-clients['"]/.test(fs.readFileSync(file, 'utf8')));
}

/** Runs a command to its end: `error` says why it failed (exit code or time-out, and the end of what it printed). */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ error?: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-2000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    const tail = (): string => output.trim().split('\n').slice(-3).join(' ').slice(0, 400);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ error: `${command}: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({});
      else if (signal) resolve({ error: `${command} ${args[0]} stopped after ${Math.round(timeoutMs / 1000)} s${tail() ? `: ${tail()}` : ''}` });
      else resolve({ error: `${command} ${args[0]} exited with code ${code}${tail() ? `: ${tail()}` : ''}` });
    });
  });
}
