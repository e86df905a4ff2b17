/**
 * One agent waits on another agent's terminal status (issue 45, item 7: it was "unknown shell"): a shell_io that
 * only waits for a status is allowed on another participant's terminal, and answers its state and nothing of
 * what is on it; reading, typing into or resizing it stays the owner's. Real MCP SDK clients over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { workspaceRoom } from '../../helpers/workspace-room';

const room = workspaceRoom();
const { call, refused } = room;
type Io = { output: string; alive: boolean; status: { state: string; since: string; reason?: string; title?: string }; wait: { reason: string } | null };

describe("waiting on another agent's terminal", () => {
  it('answers its state when it is reached, and nothing of its output', { timeout: 60_000 }, async () => {
    const { shell } = await call<{ shell: { id: string } }>('dev', 'shell_open', { shell: '/bin/sh', args: ['-c', "printf '\\033]0;secret title\\007'; echo secret output; sleep 1; echo more secret; exec sleep 60"], cwd: room.home.root });
    const watched = await call<Io>('lead', 'shell_io', { shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 20_000 } });
    expect(watched.wait?.reason).toBe('status');
    expect(watched.status.state).toBe('idle');
    expect(watched.output).toBe('');
    expect(JSON.stringify(watched)).not.toContain('secret');
    // anything more than a status wait is still the owner's: unknown to anyone else
    expect(await refused('lead', 'shell_io', { shellId: shell.id })).toMatch(/unknown shell/);
    expect(await refused('lead', 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'status', status: ['idle'], timeoutMs: 100 } })).toMatch(/unknown shell/);
    expect(await refused('lead', 'shell_io', { shellId: shell.id, text: 'echo hi\n', wait: { until: 'status', status: ['idle'], timeoutMs: 100 } })).toMatch(/unknown shell/);
    expect(await refused('lead', 'shell_io', { shellId: shell.id, format: 'screen', wait: { until: 'status', status: ['idle'], timeoutMs: 100 } })).toMatch(/unknown shell/);
    // its end is waited on the same way; a closed one is unknown
    const closing = call<Io>('lead', 'shell_io', { shellId: shell.id, wait: { until: 'status', status: ['exited'], timeoutMs: 20_000 } });
    await call('dev', 'shell_close', { shellId: shell.id });
    expect((await closing).status.state).toBe('exited');
    expect(await refused('lead', 'shell_io', { shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 100 } })).toMatch(/unknown shell/);
  });
});
