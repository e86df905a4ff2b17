import { AGENT_ENV, type AgentClient } from '../../common/agent-clients';
import type { MethodInput } from '../../common/contract';
import type { ShellView } from '../../common/methods/shells';
import type { AgentTask } from './agent-task';
import type { RemoteAgentPort, RoomForward } from '../hosts/index';

/**
 * Starts `client` on `host` for participant `name` (agent_start with host, or a task whose worktree is on a host):
 * the room's endpoint forwarded to the host's loopback for this run, the client's per-run configuration written
 * there by the host's node, and the client started in a terminal there with the run's variables (the token
 * among them) in its environment only. A start that fails leaves no forward behind.
 */
export async function startOnHost(
  remote: RemoteAgentPort,
  run: { host: string; client: AgentClient; input: MethodInput<'agent_start'>; roomUrl: string; token: string; name: string; task: AgentTask | null; cwd: string },
): Promise<{ shell: ShellView; forward: RoomForward }> {
  const { client, input, task } = run;
  const forward = await remote.forward(run.host, run.roomUrl, run.name);
  try {
    // its usage metrics through the same forward, the way the client documents it; the token in the environment only
    const telemetry = client.telemetry?.(new URL('/otlp', forward.url).toString()) ?? { args: [], env: {}, headers: [] };
    const otlpHeaders = Object.fromEntries(telemetry.headers.map((h) => [h, `Authorization=Bearer ${run.token}`]));
    const env = {
      ...telemetry.env,
      ...otlpHeaders,
      [AGENT_ENV.url]: forward.url,
      [AGENT_ENV.token]: run.token,
      [AGENT_ENV.name]: run.name,
      ...(task ? { ...task.env, [AGENT_ENV.task]: task.prompt, [AGENT_ENV.handoff]: task.handoffId } : {}),
    };
    const args = [...telemetry.args, ...(client.id === 'command' ? (input.command ?? []).slice(1) : []), ...(input.args ?? []), ...(task && client.prompt ? client.prompt(task.prompt) : [])];
    const shell = await remote.open(run.host, run.name, {
      client: client.id,
      ...(client.id === 'command' && input.command ? { program: input.command[0] as string } : {}),
      url: forward.url,
      args,
      env,
      cwd: run.cwd,
      name: client.id === 'command' ? (input.command?.[0] ?? 'command').split('/').pop() as string : client.label,
      ...(input.cols ? { cols: input.cols } : {}),
      ...(input.rows ? { rows: input.rows } : {}),
      ...(input.resume ? { resume: true, prompted: task !== null && client.prompt !== undefined } : {}),
    });
    return { shell, forward };
  } catch (error) {
    await forward.cancel();
    throw error;
  }
}
