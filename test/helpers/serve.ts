import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { BIN_CE, BIN_COMMONROOM, type TestHome } from './env';

export interface ServeProcess {
  proc: ChildProcess;
  mcpUrl: string;
  tokenFile: string;
  token: string;
  output(): string;
  /** Resolves with the exit code (or signal) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the real `commonroom serve` (the built CLI) and waits until it prints its endpoint. */
export async function startServe(home: TestHome, args: string[] = []): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [BIN_COMMONROOM, 'serve', '--port', '0', ...args], {
    env: home.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (/operator token: /.test(out)) {
          proc.stdout?.off('data', check);
          resolve(true);
        }
      };
      proc.stdout?.on('data', check);
    }),
    exited.then(() => false),
  ]);
  if (!ready) throw new Error(`commonroom serve did not start:\n${out}`);
  const mcpUrl = /MCP endpoint:\s+(\S+)/.exec(out)?.[1];
  const tokenFile = /operator token:\s+(\S+)/.exec(out)?.[1];
  if (!mcpUrl || !tokenFile) throw new Error(`unexpected serve output:\n${out}`);
  return { proc, mcpUrl, tokenFile, token: fs.readFileSync(tokenFile, 'utf8').trim(), output: () => out, exited };
}

export async function stopServe(s: ServeProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill(signal);
  return s.exited;
}

/** Runs the real `ce` CLI and returns what it printed. */
export function runCe(home: TestHome, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN_CE, ...args], { env: home.env, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `commonroom` to completion (for commands that fail fast). */
export function runCommonroom(home: TestHome, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN_COMMONROOM, ...args], { env: home.env, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
