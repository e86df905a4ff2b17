import type { TestRunner } from './runner';

/**
 * What the tests of the room's watch of agent runs read, as the operator (test/engine/agents/agent-watch-live and
 * test/hosts/host-agent-watch): a run and its terminal as listed, its screen, and the watch's own events of one run.
 */
export function watchReads(runner: () => TestRunner) {
  const engine = () => runner().running.engine;
  const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => engine().call(engine().operator(), method, input as never);
  const agentOf = async (shellId: string) => (await call('agent_list', {})).agents.find((a) => a.shellId === shellId);
  const shellOf = async (shellId: string) => (await call('shell_list', {})).shells.find((s) => s.id === shellId);
  const screen = async (shellId: string) => (await call('shell_io', { shellId, format: 'screen' })).output;
  /** The watch's events of one run, oldest first: kind and the fields a test reads (not its start and end). */
  async function events(shellId: string): Promise<{ kind: string; data: Record<string, unknown> }[]> {
    const { events: all } = await call('workspace_history', { limit: 200 });
    return all
      .filter((e) => e.kind.startsWith('agent.') && e.kind !== 'agent.started' && e.kind !== 'agent.ended' && (e.data as { shellId?: string }).shellId === shellId)
      .map((e) => ({ kind: e.kind, data: e.data as Record<string, unknown> }));
  }
  const kinds = async (shellId: string) => (await events(shellId)).map((e) => e.kind);
  return { call, agentOf, shellOf, screen, events, kinds };
}
