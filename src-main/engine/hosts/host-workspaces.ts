import { RoomError } from '../../common/errors';
import { git, gitProblem, type HostWorkspacePort } from '../workspaces/index';
import type { NodeLinks } from './node-links';
import { sshArgs, sshEnv } from './ssh';

/** One word for a POSIX shell (GIT_SSH_COMMAND is run by one). */
const sq = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** How long a fetch of a handoff's work may take. */
const FETCH_TIMEOUT_MS = 10 * 60_000;

/**
 * Handoffs' worktrees on the room's hosts (the workspaces' HostWorkspacePort): made, read and tidied by the
 * host's node (server/node-worktrees.ts, as the node's own operator: its git is the room's git there), and
 * brought back by `git fetch` here over the person's own SSH connection (the ControlMaster the link uses).
 */
export class HostWorkspaces implements HostWorkspacePort {
  constructor(
    private readonly links: NodeLinks,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  allowed(caller: { role: string }, host: string): void {
    this.links.allowed(caller, host);
  }

  async add(host: string, work: { hostRepo: string; baseCommit: string; branch: string; handoffId: string }): Promise<string> {
    const out = await this.links.get(host).call<{ path: string }>('node_worktree_add', work);
    return out.path;
  }

  async uncommitted(host: string, work: { hostRepo: string; handoffId: string }): Promise<{ path: string; status: string }[]> {
    return (await this.links.get(host).call<{ files: { path: string; status: string }[] }>('node_worktree_status', work)).files;
  }

  remove(host: string, work: { hostRepo: string; handoffId: string; branch: string; baseCommit: string; keepBranch: boolean; mergedHead: string | null }): Promise<{ removed: boolean; note: string | null }> {
    return this.links.get(host).call('node_worktree_remove', work);
  }

  /**
   * `git fetch` of the work's branch from the host's clone, by the room's git here (no hook, no config program;
   * only the ssh protocol allowed), its ssh the person's own with the options of every connection to the host
   * (BatchMode, the shared connection in the room's control folder). The remote side is the host's
   * git-upload-pack, which sends objects and runs nothing from the clone's config.
   */
  async fetch(host: string, work: { hostRepo: string; branch: string; repo: string; ref: string }): Promise<string> {
    const link = this.links.get(host);
    const target = link.sshTarget;
    const options = sshArgs(target, 'true');
    const ssh = ['ssh', ...options.slice(0, options.indexOf('--'))].map(sq).join(' ');
    const env: Record<string, string> = { GIT_SSH_COMMAND: ssh, GIT_SSH_VARIANT: 'ssh' };
    const agentSocket = sshEnv(this.env).SSH_AUTH_SOCK;
    if (agentSocket) env.SSH_AUTH_SOCK = agentSocket;
    const args = [
      '-c', 'protocol.allow=never',
      '-c', 'protocol.ssh.allow=always',
      'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--no-auto-maintenance',
      '--', `${host}:${work.hostRepo}`, `+refs/heads/${work.branch}:${work.ref}`,
    ];
    const out = await git(work.repo, args, { env, timeoutMs: FETCH_TIMEOUT_MS });
    if (out.status !== 0) {
      throw new RoomError('UNAVAILABLE', `the work of branch ${work.branch} could not be fetched from ${host}:${work.hostRepo} (${gitProblem(out)}): check "ce host check ${host}" and that git is on the host's PATH, then try again`);
    }
    const at = await git(work.repo, ['rev-parse', '--verify', '--quiet', `${work.ref}^{commit}`]);
    const commit = at.stdout.trim();
    if (at.status !== 0 || !commit) throw new RoomError('INTERNAL', `the fetch from ${host} left no commit at ${work.ref}`);
    return commit;
  }
}
