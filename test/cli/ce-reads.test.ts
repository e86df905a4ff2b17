import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACT_AS_HEADER } from '../../src-main/common/dto';
import { isRoomError } from '../../src-main/common/errors';
import { Engine, Room } from '../../src-main/engine/index';
import { startRunner } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { seedRoomFile } from '../helpers/room-file';
import { runCe } from '../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** A room with a handoff alice made for bob, and "mute", who may write but not read. */
function seedRoom(): Promise<{ taskId: string }> {
  return seedRoomFile(home, { alice: ['read', 'write'], mute: ['write'] }, async (engine, { alice }) => {
    const { handoff } = await engine.call(alice, 'handoff_create', { summary: 'look at this', to: 'mute' });
    return { taskId: handoff.taskId };
  });
}

async function refusal(fn: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (error) {
    if (isRoomError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ce reads go through the engine contract', () => {
  it('ce task --participant NAME is refused when NAME lacks read, and shown to one who has it', async () => {
    const { taskId } = await seedRoom();
    const refused = runCe(home, ['task', taskId, '--participant', 'mute']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/task_get needs the "read" capability, which mute does not have/);
    const shown = runCe(home, ['task', taskId, '--participant', 'alice', '--json']);
    expect(shown.status, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).task).toMatchObject({ taskId, owner: 'alice', status: 'working' });
  });

  it("a refusal names the ce command to use, not the agents' MCP tool", async () => {
    await seedRoom();
    const unknown = runCe(home, ['graph', 'gr_0000000000000000']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('unknown graph gr_0000000000000000: "ce graphs" shows the graphs you may see');
    expect(unknown.stderr).not.toContain('tasks_list');
  });

  it('the read-only engine takes no lock, writes nothing, and refuses every method that changes the room', async () => {
    const { taskId } = await seedRoom();
    const writer = Room.open({ paths: home.paths }); // holds the lock, serves no endpoint: ce must read the file
    const dbFile = writer.location.databasePath;
    try {
      const snapshot = () => Buffer.concat([fs.readFileSync(dbFile), fs.readFileSync(`${dbFile}-wal`)]);
      const before = snapshot();
      const listed = runCe(home, ['handoffs', '--json']);
      expect(listed.status, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).handoffs).toHaveLength(1);

      const engine = await Engine.start(Room.openReadOnly({ paths: home.paths }));
      try {
        const op = engine.operator();
        expect((await engine.call(op, 'task_get', { taskId: taskId })).task.taskId).toBe(taskId);
        const mute = engine.participantAs(op, 'mute');
        expect(await refusal(() => engine.call(mute, 'task_get', { taskId: taskId }))).toMatchObject({ code: 'FORBIDDEN' });
        expect(await refusal(() => engine.call(op, 'participant_add', { name: 'eve', capabilities: ['read'] }))).toMatchObject({
          code: 'UNAVAILABLE',
          message: expect.stringMatching(/participant_add changes the room, but the room is open read-only/),
        });
        // input is checked as on every door
        expect(await refusal(() => engine.call(op, 'task_get', { taskId: '' }))).toMatchObject({ code: 'INVALID_INPUT' });
      } finally {
        await engine.close();
      }
      expect(snapshot().equals(before)).toBe(true); // the database and its WAL: not a byte written
    } finally {
      writer.close();
    }
  });

  it('over the HTTP API (a running room process) an operator reads with a participant’s rights, never more', async () => {
    await seedRoom();
    const running = await startRunner({ port: 0, paths: home.paths });
    try {
      const token = fs.readFileSync(running.tokenFile, 'utf8').trim();
      const ask = async (as: string | undefined) => {
        const r = await fetch(new URL('/api/handoff_list', running.baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(as ? { [ACT_AS_HEADER]: as } : {}) },
          body: '{}',
        });
        return { status: r.status, body: (await r.json()) as { result?: unknown; error?: { code: string; message: string } } };
      };
      expect((await ask(undefined)).status).toBe(200);
      expect((await ask('alice')).status).toBe(200);
      expect(await ask('mute')).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
      expect(await ask('nobody')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    } finally {
      await running.close();
    }
  });
});
