import fs from 'node:fs';
import { AGENT_CLIENTS } from '../../common/agent-clients';
import type { AgentClientView } from '../../common/methods/agents';
import { findOnPath } from '../process/find-on-path';
import { versionOf } from './agent-run';

/**
 * The agent CLIs on this machine's PATH, each with its version asked once per install (its path and modification
 * time): these CLIs take seconds to answer --version when several start at once (measured: 4 in parallel 15 s,
 * one after another 3 s).
 */
export function clientVersions(): { cachedVersion(file: string, args: string[]): Promise<string | null>; clients(): Promise<AgentClientView[]> } {
  const versions = new Map<string, { mtimeMs: number; version: string | null }>();
  async function cachedVersion(file: string, args: string[]): Promise<string | null> {
    const mtimeMs = fs.statSync(file).mtimeMs;
    const known = versions.get(file);
    if (known && known.mtimeMs === mtimeMs) return known.version;
    const version = await versionOf(file, args);
    versions.set(file, { mtimeMs, version });
    return version;
  }
  return {
    cachedVersion,
    async clients() {
      const out: AgentClientView[] = [];
      for (const c of Object.values(AGENT_CLIENTS)) {
        if (c.program === null) continue;
        const found = findOnPath(c.program, process.env.PATH ?? '');
        out.push({ id: c.id, label: c.label, program: c.program, path: found, version: found ? await cachedVersion(found, c.versionArgs) : null, install: c.install });
      }
      return out;
    },
  };
}
