import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/engine';
import { Room } from '../../src-main/engine/room/room';
import { hashToken } from '../../src-main/engine/core/tokens';
import { makeHome, type TestHome } from '../helpers/env';

// every case opens a room of its own in a fresh home
let home: TestHome;
let md: string;
beforeEach(() => {
  home = makeHome();
  md = path.join(home.root, 'room.md');
});
afterEach(() => home.cleanup());

// The room's writer keeps the participants it found by token (every request authenticates); these are the
// promises that keeping must not bend: a revoked token is refused at once, a rolled-back write leaves nothing
// behind, and a read-only room (another process writes) never answers from a stale copy.
describe('authenticating a token', () => {
  it('answers the same participant call after call, and nobody from the moment its token is revoked', async () => {
    const engine = await Engine.start(Room.open({ markdown: md, paths: home.paths }));
    try {
      const { token } = await engine.call(engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read'] });
      expect(engine.authenticate(token)).toMatchObject({ name: 'agent', role: 'agent', capabilities: ['read'] });
      expect(engine.authenticate(token)).toMatchObject({ name: 'agent', capabilities: ['read'] });
      await engine.call(engine.operator(), 'participant_revoke', { name: 'agent' });
      expect(engine.authenticate(token)).toBeNull();
      expect(engine.authenticate('cr_not-a-token-anyone-holds')).toBeNull();
    } finally {
      await engine.close();
    }
  });

  it('a participant inserted in a transaction that rolls back is not found afterwards, even if looked up inside it', () => {
    const room = Room.open({ markdown: md, paths: home.paths });
    try {
      const hash = hashToken('cr_rolled-back-token-0123456789abcdef');
      expect(() =>
        room.db.transaction(() => {
          room.participants.insert({ name: 'ghost', role: 'agent', capabilities: ['read'], tokenHash: hash, at: room.now() });
          expect(room.participants.byTokenHash(hash)?.name).toBe('ghost');
          throw new Error('roll back');
        })(),
      ).toThrow('roll back');
      expect(room.participants.byTokenHash(hash)).toBeNull();
    } finally {
      room.close();
    }
  });

  it('a read-only room sees a revocation its writer made after it looked the token up', async () => {
    const engine = await Engine.start(Room.open({ markdown: md, paths: home.paths }));
    const reader = Room.openReadOnly({ markdown: md, paths: home.paths });
    try {
      const { token } = await engine.call(engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read'] });
      expect(reader.participants.byTokenHash(hashToken(token))?.name).toBe('agent');
      await engine.call(engine.operator(), 'participant_revoke', { name: 'agent' });
      expect(reader.participants.byTokenHash(hashToken(token))).toBeNull();
    } finally {
      reader.close();
      await engine.close();
    }
  });

  it('the participant answered cannot be changed by the code it is handed to', async () => {
    const engine = await Engine.start(Room.open({ markdown: md, paths: home.paths }));
    try {
      const { token } = await engine.call(engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read'] });
      const first = engine.authenticate(token);
      expect(() => (first?.capabilities as string[]).push('operate')).toThrow();
      expect(engine.authenticate(token)?.capabilities).toEqual(['read']);
    } finally {
      await engine.close();
    }
  });
});

// The writer keeps participants by name too (the revocation guard asks on every call of an agent), under the
// same rules: a revocation, a capability change of any kind and a rolled-back write are seen at once.
describe('looking a participant up by name', () => {
  it('refuses the next call of an agent revoked after calls that found it live', async () => {
    const engine = await Engine.start(Room.open({ markdown: md, paths: home.paths }));
    try {
      const { token } = await engine.call(engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read'] });
      const agent = engine.authenticate(token);
      if (!agent) throw new Error('the new token was not accepted');
      await engine.call(agent, 'room_info', {});
      await engine.call(agent, 'room_info', {});
      expect(engine.room.participants.byName('agent')?.revokedAt).toBeNull();
      await engine.call(engine.operator(), 'participant_revoke', { name: 'agent' });
      expect(engine.room.participants.byName('agent')?.revokedAt).not.toBeNull();
      await expect(engine.call(agent, 'room_info', {})).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      await engine.close();
    }
  });

  it('a participant inserted in a transaction that rolls back is not found by name afterwards', () => {
    const room = Room.open({ markdown: md, paths: home.paths });
    try {
      expect(room.participants.byName('ghost')).toBeNull();
      expect(() =>
        room.db.transaction(() => {
          room.participants.insert({ name: 'ghost', role: 'agent', capabilities: ['read'], tokenHash: hashToken('cr_ghost-token-0123456789abcdef0'), at: room.now() });
          expect(room.participants.byName('ghost')?.name).toBe('ghost');
          throw new Error('roll back');
        })(),
      ).toThrow('roll back');
      expect(room.participants.byName('ghost')).toBeNull();
    } finally {
      room.close();
    }
  });

  it('hands each caller its own copy: changing one does not change what the next lookup answers', async () => {
    const engine = await Engine.start(Room.open({ markdown: md, paths: home.paths }));
    try {
      await engine.call(engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read'] });
      const first = engine.room.participants.byName('agent');
      first?.capabilities.push('operate');
      if (first) first.revokedAt = 'never';
      expect(engine.room.participants.byName('agent')).toMatchObject({ capabilities: ['read'], revokedAt: null });
    } finally {
      await engine.close();
    }
  });
});
