import path from 'node:path';
import { AGENT_CLIENT_IDS, type AgentClientId } from '../../common/agent-clients';
import { parseCapabilities } from '../../common/capabilities';
import type { AgentRunView } from '../../common/methods/agents';
import { stringFlag, UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callRunningRoomAsOperator } from '../room-client';
import { visible } from '../visible-text';
import { runWatchCommand, WATCH_OPTIONS, watchFlags, watchWords } from './agent-watch';
import { ENVELOPE_LIMIT_OPTIONS, envelopeLimitFlags } from './spend';

const USAGE =
  'ce agent start CLIENT [--cwd DIR] [--task TEXT [--repo DIR] [--base REF] [--continues HANDOFF]] [--host ALIAS [--host-repo PATH]] [--resume] [--can read,write] [--as NAME] [--on-stall tell|interrupt|restart] [--stall-minutes N] [--on-limit resume|ask|leave] [--max-cost USD] [--max-tokens N] [--max-wall S] [--max-idle S] [-- ARGS…] | ' +
  'ce agent list | ce agent stop SHELL [--revoke] | ce agent watch SHELL [--on-stall …] [--stall-minutes N] [--on-limit …] | ce agent limit SHELL now|at-reset|cancel | ce agent defaults [--on-stall …] [--stall-minutes N] [--on-limit …] | ce agent clients';

function agentLine(a: AgentRunView): string {
  const s = a.shell.status;
  const state = s.state === 'waiting' ? `WAITING FOR YOU${s.reason ? ` (${visible(s.reason)})` : ''}` : s.state === 'exited' ? `exited${s.reason ? ` (${s.reason})` : ''}` : s.state;
  return `${a.shellId}  ${a.participant.padEnd(16)} ${`${a.label}${a.version ? ` ${a.version}` : ''}`.padEnd(32)} ${state.padEnd(10)} ${a.cwd}${watchWords(a)}`;
}

/** Agents need the running room process: their terminals live in it, and they connect to its endpoint. */
async function call<M extends 'agent_clients' | 'agent_start' | 'agent_list' | 'agent_stop' | 'agent_complete'>(room: string | undefined, method: M, input: Parameters<typeof callRunningRoomAsOperator<M>>[2]) {
  const out = await callRunningRoomAsOperator(room, method, input);
  if (out === null) throw new Error('no room process serves this room: start it with "commonroom serve" (or the app), then start agents in it');
  return out;
}

export const AGENT_COMMANDS: CeCommand[] = [
  {
    name: 'agent',
    synopsis: USAGE.split(' | '),
    summary: 'start an agent CLI (Claude Code, Codex, Gemini CLI, opencode) in a terminal of the running room, already connected; list or stop them',
    options: {
      cwd: { type: 'string', value: 'DIR', help: 'the folder it works in (default: the current folder; a relative DIR is taken from it)' },
      task: { type: 'string', value: 'TEXT', help: 'a task: handed to it as your handoff, its first prompt; in a git repository it starts in a worktree of its own' },
      repo: { type: 'string', value: 'DIR', help: 'with --task: the repository the worktree is made in (default: the folder it works in, when that is in one)' },
      base: { type: 'string', value: 'REF', help: 'with --task: the branch, tag or commit the work starts from (default: the branch checked out there)' },
      can: { type: 'string', value: 'CAPS', help: 'what it may do (default read,write)' },
      as: { type: 'string', value: 'NAME', help: 'reuse this participant (it gets a new token; its old one stops)' },
      host: { type: 'string', value: 'ALIAS', help: "start it on this host of the room (docs/hosts.md): found on the host's login PATH, reaching the room through your SSH connection; --cwd is then a folder there (default: the account's home)" },
      'host-repo': { type: 'string', value: 'PATH', help: "with --task, --repo and --host: the absolute path of the host's clone of DIR, where the task's worktree is made" },
      continues: { type: 'string', value: 'HANDOFF', help: 'with --task: follow up on this rejected handoff, with the agent that did it, in the same worktree' },
      resume: { type: 'boolean', help: "go on with the client's most recent conversation in that folder (Claude Code --continue, Codex resume --last, Gemini CLI --resume latest, opencode --continue)" },
      revoke: { type: 'boolean', help: 'with stop: also revoke its token' },
      ...WATCH_OPTIONS,
      ...ENVELOPE_LIMIT_OPTIONS,
    },
    details: [
      `CLIENT is one of ${AGENT_CLIENT_IDS.join(', ')} ("command" runs the program after --, which gets the endpoint and token in COMMONROOM_MCP_URL and COMMONROOM_TOKEN, and a config file in COMMONROOM_MCP_CONFIG).`,
      'Each run gets a participant of its own (claude-code, claude-code-2, …) and its server for that run only: your own client configuration is never written,',
      'and the token is only in the run\'s environment, never on a command line. Arguments after -- go to the client.',
      'Watch and type into it with "ce shell attach SHELL" or on the Terminals screen.',
      'The room watches each: one working whose terminal, CPU and process tree stay quiet reads stalled (tell, interrupt or restart: --on-stall),',
      'and one whose client stops at a usage limit reads limited until its reset (resume at the reset, ask or leave: --on-limit); "ce agent limit" resumes or cancels.',
      'With --max-cost, --max-tokens, --max-wall or --max-idle the run has an envelope from its first moment (as "ce envelope set --agent"): at a limit it is stopped at a safe point.',
    ],
    examples: ['ce agent start claude-code --cwd ~/src/app', 'ce agent start codex --task "make the login test pass" --repo ~/src/app', 'ce agent start codex -- --model o4-mini', 'ce agent start command -- ./my-agent --verbose', 'ce agent list', 'ce agent stop sh_… --revoke', 'ce agent start claude-code --on-stall interrupt --on-limit resume', 'ce agent limit sh_… cancel', 'ce agent start codex --task "tidy the README" --max-cost 2 --max-wall 3600', 'ce agent start claude-code --host gpu-box --task "train the small model" --repo ~/src/app --host-repo /srv/me/app'],
    async run(args, room) {
      const [, sub, target, ...rest] = args.positional;
      switch (sub) {
        case 'start': {
          if (!target || !(AGENT_CLIENT_IDS as readonly string[]).includes(target)) {
            throw new UsageError(`ce agent start CLIENT: CLIENT is one of ${AGENT_CLIENT_IDS.join(', ')}${target ? ` (not ${JSON.stringify(target)})` : ''}`);
          }
          const can = stringFlag(args, 'can');
          const cwd = stringFlag(args, 'cwd');
          const as = stringFlag(args, 'as');
          const task = stringFlag(args, 'task');
          const repo = stringFlag(args, 'repo');
          const base = stringFlag(args, 'base');
          const continues = stringFlag(args, 'continues');
          const host = stringFlag(args, 'host');
          const hostRepo = stringFlag(args, 'host-repo');
          if (hostRepo !== undefined && (host === undefined || task === undefined || repo === undefined)) throw new UsageError('ce agent start: --host-repo is the host\'s clone for a task\'s worktree there: give --task, --repo and --host with it');
          if (task === undefined && (repo !== undefined || base !== undefined || continues !== undefined)) throw new UsageError('ce agent start: --repo, --base and --continues are for a task: give --task TEXT too');
          const client = target as AgentClientId;
          const envelope = envelopeLimitFlags(args);
          const out = await call(room, 'agent_start', {
            client,
            ...(client === 'command' ? { command: rest } : rest.length > 0 ? { args: rest } : {}),
            // the person's folder: where they ran ce, or --cwd taken from there (never the room's own folder, which is
            // read-only to agents for the default room, where a mistaken run would leave an agent with nowhere to write)
            // on a host, --cwd is a folder there, as given (default: the host account's home)
            ...(host !== undefined ? { host, ...(cwd !== undefined ? { cwd } : {}), ...(hostRepo !== undefined ? { hostRepo } : {}) } : { cwd: path.resolve((cwd ?? '.').replace(/^~(?=\/|$)/, process.env.HOME ?? '~')) }),
            ...(can ? { capabilities: parseCapabilities(can) } : {}),
            ...(as ? { participant: as } : {}),
            ...(task !== undefined ? { task } : {}),
            ...(repo !== undefined ? { repo: path.resolve(repo.replace(/^~(?=\/|$)/, process.env.HOME ?? '~')) } : {}),
            ...(base !== undefined ? { base } : {}),
            ...(continues !== undefined ? { continues } : {}),
            ...(args.flags.resume ? { resume: true } : {}),
            ...watchFlags(args),
            ...(Object.keys(envelope).length > 0 ? { envelope } : {}),
          });
          print(args, out, () =>
            [
              `started ${out.agent.label}${out.agent.version ? ` ${out.agent.version}` : ''} as ${out.agent.participant} in shell ${out.agent.shellId} (${out.agent.host ? `on ${out.agent.host}, ` : ''}${out.agent.cwd})`,
              ...(envelope.maxCostUsd || envelope.maxTokens || envelope.maxWallMs || envelope.maxIdleMs ? ['with an envelope: see "ce spend"'] : []),
              ...(out.agent.handoffId ? [`on handoff ${out.agent.handoffId}: review it with "ce handoff ${out.agent.handoffId}" once it is completed`] : []),
              `watch and type: ce shell attach ${out.agent.shellId}`,
            ].join('\n'),
          );
          return 0;
        }
        case 'list': {
          const { agents, earlier } = await call(room, 'agent_list', {});
          print(args, { agents, earlier }, () =>
            [
              ...(agents.length === 0 ? ['no agents running in this room (ce agent start CLIENT)'] : agents.map(agentLine)),
              ...(earlier.length > 0 ? ['', 'earlier (their terminal is gone; participant and history kept):', ...earlier.map((e) => `  ${e.participant.padEnd(16)} ${e.client.padEnd(12)} ${e.cwd}\n    again: ${e.again}`)] : []),
            ].join('\n'),
          );
          return 0;
        }
        case 'stop': {
          if (!target) throw new UsageError('ce agent stop SHELL: name its shell (see "ce agent list")');
          const out = await call(room, 'agent_stop', { shellId: target, ...(args.flags.revoke ? { revoke: true } : {}) });
          print(args, out, () => `stopped ${out.agent.participant} (shell ${out.agent.shellId})${out.revoked ? '; its token is revoked' : ''}`);
          return 0;
        }
        case 'watch':
        case 'limit':
        case 'defaults':
          return runWatchCommand(sub, target, rest[0], args, room);
        case 'clients': {
          const { clients } = await call(room, 'agent_clients', {});
          print(args, { clients }, () => clients.map((c) => `${c.id.padEnd(12)} ${c.path ? `${c.path}${c.version ? `  ${c.version}` : ''}` : `not installed: ${c.install ?? ''}`}`).join('\n'));
          return 0;
        }
        default:
          throw new UsageError(`ce agent ${sub ?? ''}: use start, list, stop, watch, limit, defaults or clients`);
      }
    },
  },
];
