import path from 'node:path';
import { ensurePrivateDir } from '../../core/fs-safe';
import type { RemoteStageHandle, RemoteStagePort } from '../../process/remote-stage';
import type { StageRecord } from '../../store/graphs';

/**
 * Hands a stage to its host's node through the port (docs/hosts.md): the fields of its spec that travel, its
 * key (the attempt's tag: the same after a restart, so the node answers with the run it has), and its log here,
 * which the port fills with a copy of the node's.
 */
export function startRemote(
  port: RemoteStagePort,
  s: StageRecord,
  owner: string,
  host: string,
  o: { key: string; role: string | undefined; grew: () => void },
): RemoteStageHandle {
  const { command, cwd, env, timeoutMs, retries, retryBackoffMs, killGraceMs } = s.spec;
  ensurePrivateDir(path.dirname(s.logPath));
  return port.start({
    host,
    key: o.key,
    owner,
    ownerRole: o.role,
    spec: { command, cwd, env, timeoutMs, retries, retryBackoffMs, killGraceMs },
    logPath: s.logPath,
    grew: o.grew,
  });
}
