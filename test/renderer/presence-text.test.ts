import { describe, expect, it } from 'vitest';
import type { ParticipantPresence } from '../../src-main/common/methods/participants';
import { presenceText } from '../../src-renderer/src/features/agents/presence-text';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (min: number) => new Date(NOW - min * 60_000).toISOString();
const p = (over: Partial<ParticipantPresence>): ParticipantPresence => ({ name: 'a', connections: 0, streams: 0, sessions: [], lastCall: null, lastCallAt: null, lastSeenAt: null, disconnectedAt: null, ...over });
const session = (usedMinAgo: number) => ({ id: 's', client: 'claude-code', openedAt: ago(60), lastUsedAt: ago(usedMinAgo) });

describe('presence in words', () => {
  it.each([
    ['a listen stream open', p({ connections: 1, streams: 1, lastSeenAt: ago(40) }), 'connected', true],
    ['a session used a minute ago', p({ connections: 1, sessions: [session(1)], lastSeenAt: ago(1) }), 'connected', true],
    ['a session left open, unused for 26 minutes', p({ connections: 1, sessions: [session(26)], lastSeenAt: ago(26) }), 'idle · seen 26 min ago', false],
    ['its last connection closed 26 minutes ago', p({ lastSeenAt: ago(26), disconnectedAt: ago(26) }), 'left 26 min ago', false],
    ['a 2026 client that called 3 hours ago', p({ lastCall: 'shell_list', lastCallAt: ago(180), lastSeenAt: ago(180) }), 'seen 3 h ago', false],
    ['nothing since the room started', undefined, 'not seen yet', false],
  ])('%s', (_, presence, text, connected) => {
    expect(presenceText(presence, false, NOW)).toMatchObject({ text, connected });
  });

  it('a revoked participant is not connected, whatever its sessions say', () => {
    expect(presenceText(p({ connections: 1, streams: 1 }), true, NOW)).toMatchObject({ text: 'not connected (revoked)', connected: false });
  });
});
