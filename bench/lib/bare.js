// Starts and stops the bare baseline server (bare-server.js) as its own process, like the room process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export const BARE_SERVER = path.join(import.meta.dirname, 'bare-server.js');
/** The viewer row's floor: a shell relayed to a WebSocket viewer with nothing else (see bare-relay.js). */
export const BARE_RELAY = path.join(import.meta.dirname, 'bare-relay.js');
/** The raw JSON-RPC floor of `mcp-call`: node:http answering the same JSON-RPC, no SDK (see bare-rpc.js). */
export const BARE_RPC = path.join(import.meta.dirname, 'bare-rpc.js');
export const BARE_TOKEN = 'bare-baseline-token';

/**
 * nodeArgs: flags for its node (e.g. --cpu-prof, as `bench/investigations/mcp-call-cpu.js` and `bench/investigations/profile-startup.js` profile it);
 * script: BARE_RELAY for the relay, BARE_RPC for the raw JSON-RPC server, instead of the bare server.
 */
export async function startBare({ nodeArgs = [], script = BARE_SERVER } = {}) {
  const started = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, script], { env: { ...process.env, BENCH_TOKEN: BARE_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  proc.stderr.on('data', (d) => (out += d.toString()));
  const port = await Promise.race([
    new Promise((resolve) => {
      proc.stdout.on('data', (d) => {
        out += d.toString();
        const m = /\{"port":(\d+)\}/.exec(out);
        if (m) resolve(Number(m[1]));
      });
    }),
    exited.then(() => null),
  ]);
  if (!port) throw new Error(`bare server did not start:\n${out}`);
  return {
    proc,
    pid: proc.pid,
    port,
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    token: BARE_TOKEN,
    listeningAfterMs: performance.now() - started,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
