import { CLIENTS, type ClientProfile } from '../../common/clients/index';
import type { HostCheck, HostTool } from '../../common/methods/hosts';
import { RUNNER_VERSION } from '../../common/version';
import { runSsh, sshFailure, type SshTarget } from './ssh';

/**
 * A host's check: one ssh connection (the shared one), one probe script read by a POSIX sh started from the
 * person's LOGIN shell on the host — so the PATH it sees is the one their profile builds (nvm, ~/.local/bin),
 * which a plain `ssh host cmd` misses. The probe only looks (command -v, --version); it installs nothing.
 */

/** What the probe looks for: the room's own needs, then each agent client the room can start. */
const STARTABLE: readonly ClientProfile[] = CLIENTS.filter((c: ClientProfile) => c.start?.program);
const TOOLS: { name: string; command: string }[] = [
  { name: 'node', command: 'node' },
  { name: 'git', command: 'git' },
  { name: 'commonroom', command: 'commonroom' },
  ...STARTABLE.map((c) => ({ name: c.id, command: c.start?.program as string })),
];

const BEGIN = '__commonroom_probe_begin__';
const END = '__commonroom_probe_end__';

/** The probe: tab-separated lines between two markers (a profile that prints a banner is left outside them). */
export function probeScript(): string {
  const lines = [
    `echo ${BEGIN}`,
    'printf "os\\t%s\\n" "$(uname -s 2>/dev/null)"',
    'printf "arch\\t%s\\n" "$(uname -m 2>/dev/null)"',
    'printf "path\\t%s\\n" "$PATH"',
    'probe() {',
    '  p=$(command -v "$2" 2>/dev/null)',
    '  case "$p" in /*) ;; *) p="" ;; esac',
    '  v=""',
    '  if [ -n "$p" ]; then',
    '    if command -v timeout >/dev/null 2>&1; then v=$(timeout 15 "$p" --version </dev/null 2>/dev/null | head -n 1)',
    '    else v=$("$p" --version </dev/null 2>/dev/null | head -n 1); fi',
    '  fi',
    '  printf "tool\\t%s\\t%s\\t%s\\t%s\\n" "$1" "$2" "$p" "$v"',
    '}',
    ...TOOLS.map((t) => `probe ${t.name} ${t.command}`),
    `echo ${END}`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * What ssh runs: the person's login shell (whatever it is: sh, bash, zsh, fish all take -l -c), which runs a
 * POSIX sh reading the probe from standard input with the PATH the login gave it.
 */
export const LOGIN_SH = "exec $SHELL -l -c 'exec /bin/sh -s'";

/** The first version number in a --version line ("v20.19.2", "git version 2.39.5", "2.1.197 (Claude Code)"). */
function versionNumber(line: string | null): number[] | null {
  const m = line ? /(\d+)\.(\d+)(?:\.(\d+))?/.exec(line) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

function atLeast(v: number[], want: number[]): boolean {
  for (let i = 0; i < want.length; i++) {
    if ((v[i] ?? 0) !== (want[i] ?? 0)) return (v[i] ?? 0) > (want[i] ?? 0);
  }
  return true;
}

const NODE_MIN = [20, 19, 0];

/** Reads the probe's answer and says what is missing, each with how to install it. */
export function readProbe(stdout: string, at: string, tookMs: number): HostCheck {
  const begin = stdout.indexOf(BEGIN);
  const end = stdout.indexOf(END, begin);
  const body = begin >= 0 ? stdout.slice(begin + BEGIN.length, end >= 0 ? end : undefined) : '';
  const facts = new Map<string, string>();
  const tools: HostTool[] = [];
  for (const line of body.split('\n')) {
    const parts = line.split('\t');
    if (parts[0] === 'tool' && parts.length >= 4) {
      tools.push({ name: parts[1] as string, command: parts[2] as string, path: parts[3] || null, version: parts[4]?.trim() || null });
    } else if (parts.length >= 2 && parts[0]) facts.set(parts[0], parts.slice(1).join('\t'));
  }
  const tool = (name: string) => tools.find((t) => t.name === name);
  const missing: string[] = [];
  const node = tool('node');
  const nodeVersion = versionNumber(node?.version ?? null);
  if (!node?.path) missing.push('Node.js is not on the login PATH: install Node 20.19 or newer (e.g. with your package manager or nvm), then check again');
  else if (!nodeVersion || !atLeast(nodeVersion, NODE_MIN)) missing.push(`Node.js is ${node.version ?? 'of an unknown version'}: Commonroom needs 20.19 or newer; update it, then check again`);
  if (!tool('git')?.path) missing.push('git is not on the login PATH: install git (worktrees and reviews of work done there need it)');
  const room = tool('commonroom');
  if (!room?.path) missing.push(`Commonroom is not installed: run "npm install -g commonroom@${RUNNER_VERSION}" on the host (the same program, run there headless by the room)`);
  else if (room.version && !room.version.includes(RUNNER_VERSION)) {
    missing.push(`Commonroom there is ${room.version}, this room runs ${RUNNER_VERSION}: run "npm install -g commonroom@${RUNNER_VERSION}" on the host`);
  }
  const clients = STARTABLE;
  if (!clients.some((c) => tool(c.id)?.path)) {
    const examples = clients.map((c) => c.start?.install).filter(Boolean).slice(0, 2).join(' or ');
    missing.push(`no agent CLI is on the login PATH (${clients.map((c) => c.start?.program).join(', ')}): shells and graphs work there; to start agents there, install one (${examples})`);
  }
  const ready = missing.length === 0 || (missing.length === 1 && missing[0]?.startsWith('no agent CLI') === true);
  return {
    at,
    reachable: true,
    ready,
    error: null,
    os: facts.get('os') || null,
    arch: facts.get('arch') || null,
    path: facts.get('path') || null,
    tools,
    missing,
    tookMs,
  };
}

/** Connects and probes; a connection that fails is an answer (reachable: false, with why), never a throw. */
export async function checkHost(target: SshTarget, now: () => string, elapsedMs: () => number, timeoutMs = 60_000): Promise<HostCheck> {
  const started = elapsedMs();
  const result = await runSsh(target, LOGIN_SH, probeScript(), timeoutMs);
  const took = Math.round(elapsedMs() - started);
  if (result.code !== 255 && !result.timedOut && result.stdout.includes(END)) return readProbe(result.stdout, now(), took);
  const error =
    result.code === 255 || result.spawnError || result.timedOut
      ? sshFailure(target.alias, result, target.config.path)
      : `${target.alias}: connected, but its login shell did not run the probe (exit ${result.code ?? 'none'}${result.stderr.trim() ? `: ${result.stderr.trim().split('\n').slice(-1)[0]}` : ''}): check that "ssh ${target.alias} true" works and its login shell is a POSIX-like shell`;
  return { at: now(), reachable: false, ready: false, error, os: null, arch: null, path: null, tools: [], missing: [], tookMs: took };
}
