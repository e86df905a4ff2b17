import net from 'node:net';
import type { Readiness } from '../../../common/graphs/graph-spec';

const PROBE_INTERVAL_MS = 200;

function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function urlOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000), redirect: 'manual' });
    await response.body?.cancel();
    return response.status < 400;
  } catch {
    return false;
  }
}

/**
 * Polls a port or URL readiness condition until it holds (resolves true) or `stop` is aborted (false).
 * Log-pattern readiness is not probed: the stage runner matches output lines as they arrive.
 */
export async function probeUntilReady(readiness: Readiness, stop: AbortSignal): Promise<boolean> {
  while (!stop.aborted) {
    const ok =
      readiness.port !== undefined
        ? await tcpOpen(readiness.host ?? '127.0.0.1', readiness.port)
        : readiness.url !== undefined
          ? await urlOk(readiness.url)
          : false;
    if (ok && !stop.aborted) return true;
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(t);
        resolve();
      };
      // the listener goes with the timer: a probe that runs for days must not pile them up
      const t = setTimeout(() => {
        stop.removeEventListener('abort', onAbort);
        resolve();
      }, PROBE_INTERVAL_MS);
      stop.addEventListener('abort', onAbort, { once: true });
    });
  }
  return false;
}
