import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';

/**
 * Where the tests find the real agent CLIs and MCP clients (test/clients/package.json, versions pinned there and
 * in its lock file): test/clients/node_modules first (a developer's or CI's own `npm install --prefix
 * test/clients`), then the cache the test set-up installs into on first run (test/helpers/real-clients-setup.ts),
 * `$XDG_CACHE_HOME/commonroom/test-clients/<hash of package.json and its lock>`, outside the checkout. Every test
 * that needs a real client asks here, and skips with the reason this gives when they are not there.
 */

const CLIENTS_DIR = path.resolve(__dirname, '..', 'clients');

/** The commands test/clients/package.json installs, by the name of their file in node_modules/.bin. */
export const REAL_CLIENT_COMMANDS = ['claude', 'codex', 'gemini', 'opencode', 'mcp-remote'] as const;
export type RealClientCommand = (typeof REAL_CLIENT_COMMANDS)[number];

/** The opt-out: `COMMONROOM_TEST_CLIENTS=skip` never installs them (their tests skip and say so). */
export const OPT_OUT_VARIABLE = 'COMMONROOM_TEST_CLIENTS';

/** How to run the tests that need them, said in every skip. */
export const HOW_TO_RUN = `to run them: npm install --prefix test/clients, or let the test set-up install them (~1.1 GB from the npm registry, into ${path.dirname(cacheDir())}) with ${OPT_OUT_VARIABLE} unset`;

/** The cache folder for this exact package.json and lock file: a change of a pinned version is a new folder. */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const hash = crypto.createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(CLIENTS_DIR, file)));
  return path.join(base, 'commonroom', 'test-clients', hash.digest('hex').slice(0, 16));
}

/** The folders that may hold the installed clients, in the order they are looked in. */
export function clientRoots(): string[] {
  return [path.join(CLIENTS_DIR, 'node_modules'), path.join(cacheDir(), 'node_modules')];
}

/** The first node_modules/.bin holding every pinned command, or undefined. */
export function installedBin(): string | undefined {
  for (const root of clientRoots()) {
    const bin = path.join(root, '.bin');
    if (REAL_CLIENT_COMMANDS.every((c) => fs.existsSync(path.join(bin, c)))) return bin;
  }
  return undefined;
}

export interface RealClients {
  /** The node_modules/.bin holding them (put it first on a PATH, or join a command to it). */
  bin: string;
  /** Empty when every command asked for is there; else why not and how to run the tests that need them. */
  reason: string;
}

/**
 * The real clients a test file needs: where they are, or why they are not there (what the set-up tried, when it
 * tried, and how to run the tests). `describe.skipIf(reason !== '')(`… (skipped: ${reason})`)` puts the reason in
 * the summary's skip list.
 */
export function realClients(needed: readonly RealClientCommand[] = REAL_CLIENT_COMMANDS): RealClients {
  const bin = installedBin() ?? firstHolding(needed);
  if (bin) return { bin, reason: '' };
  let why: string | undefined;
  try {
    why = inject('realClientsSkip');
  } catch {
    why = undefined;
  }
  return { bin: path.join(CLIENTS_DIR, 'node_modules', '.bin'), reason: `${needed.join(', ')} not installed${why ? ` (${why})` : ''}; ${HOW_TO_RUN}` };
}

function firstHolding(needed: readonly RealClientCommand[]): string | undefined {
  return clientRoots()
    .map((r) => path.join(r, '.bin'))
    .find((bin) => needed.every((c) => fs.existsSync(path.join(bin, c))));
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the set-up when it did not install the real clients: why (opted out, registry unreachable, …). */
    realClientsSkip?: string;
  }
}
