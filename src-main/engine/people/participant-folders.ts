import fs from 'node:fs';
import os from 'node:os';
import { isInside } from '../core/fs-safe';
import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { MAX_WRITABLE_FOLDERS } from '../../common/methods/participants';
import type { EngineContext } from '../room/index';
import { ROOM_FOLDER_NAME, roomStateDir } from '../core/room-paths';
import { toView } from '../store/participants';
export { writableFoldersFor } from '../store/participants';

/**
 * The folders the person lets an agent write besides its working folder, temp folders and tool caches
 * (participant_folders, `ce participant folders`, the Agents screen). Only the operator widens; anyone with
 * operate may narrow. A folder is stored as its real path, checked when it is added: absolute, an existing
 * folder, not `/`, not the home folder itself, and neither in nor around Commonroom's config or data folder
 * (tokens, shell start-up files, other agents' run folders) nor in a room's state folder. The sandbox reads
 * them at each launch through `writableFoldersFor`.
 */


function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The folder as it will be stored (its real path), or a refusal that says what to give instead. */
export function checkWritableFolder(ctx: EngineContext, given: string): string {
  if (!path.isAbsolute(given)) {
    throw new RoomError('INVALID_INPUT', `${JSON.stringify(given)} is not an absolute path: give the full path of a folder, such as ${path.join(os.homedir(), 'projects', 'site')}`);
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(given);
  } catch {
    throw new RoomError('INVALID_INPUT', `${given} does not exist: create the folder first, or give an existing one`);
  }
  if (!stat.isDirectory()) throw new RoomError('INVALID_INPUT', `${given} is a file, not a folder: give the folder that holds what the agent should write`);
  const real = fs.realpathSync(given);
  const shown = real === given ? given : `${given} (${real})`;
  if (path.parse(real).root === real) {
    throw new RoomError('INVALID_INPUT', `${shown} is the whole file system: give the one folder the agent needs to write, such as ${path.join(os.homedir(), 'projects', 'site')}`);
  }
  const home = realOrSelf(os.homedir());
  if (real === home) {
    throw new RoomError('INVALID_INPUT', `${shown} is your home folder itself (your shell start-up files, keys and tokens): give a folder inside it, such as ${path.join(home, 'projects', 'site')}`);
  }
  const { configDir, dataDir } = ctx.room.paths;
  const guarded: [string, string][] = [
    [realOrSelf(configDir), "Commonroom's config folder (the operator tokens)"],
    [realOrSelf(dataDir), "Commonroom's data folder (shell start-up files, agents' run folders, rooms)"],
  ];
  for (const [folder, what] of guarded) {
    if (isInside(folder, real)) throw new RoomError('INVALID_INPUT', `${shown} is inside ${what}, ${folder}: agents never write there; give a folder outside it`);
    if (isInside(real, folder)) throw new RoomError('INVALID_INPUT', `${shown} holds ${what}, ${folder}: agents never write there; give a folder that does not contain it, such as one beside it`);
  }
  const state = realOrSelf(roomStateDir(ctx.room.location.markdownPath));
  if (isInside(state, real) || real.split(path.sep).some((part) => ROOM_FOLDER_NAME.test(part))) {
    throw new RoomError('INVALID_INPUT', `${shown} is inside a room's state folder (its logs and archives, *.commonroom.d): give a folder outside it`);
  }
  return real;
}

/** participant_folders: list (neither add nor remove), add (the operator only) or remove one folder. */
export function participantFolders(ctx: EngineContext, caller: Caller, input: MethodInput<'participant_folders'>): MethodOutputs['participant_folders'] {
  const { room } = ctx;
  const record = room.participants.byName(input.name);
  if (!record) throw new RoomError('NOT_FOUND', `no participant named "${input.name}": see "ce participant list"`);
  const answer = (changed: boolean) => {
    const after = room.participants.byName(input.name);
    if (!after) throw new RoomError('INTERNAL', 'participant vanished after a folder change');
    return { participant: toView(after), folders: [...after.writableFolders], changed };
  };
  if (input.add === undefined && input.remove === undefined) return answer(false);
  if (record.role === 'operator') {
    throw new RoomError('INVALID_INPUT', "the operator's own shells are not sandboxed (they write wherever you can): writable folders are for agents: name an agent (see \"ce participant list\")");
  }
  const folders = [...record.writableFolders];
  let next: string[];
  let data: Record<string, unknown>;
  if (input.add !== undefined) {
    // widening is the person's decision alone: an agent holding operate never widens itself or another
    if (caller.role !== 'operator') {
      throw new RoomError('FORBIDDEN', 'only the operator lets an agent write more folders: ask the person at the desktop (Agents screen, or "ce participant folders NAME --add PATH")');
    }
    if (record.revokedAt !== null) throw new RoomError('CONFLICT', `${input.name} is revoked: add it again ("ce participant add ${input.name} --can …") first`);
    const folder = checkWritableFolder(ctx, input.add);
    if (folders.includes(folder)) return answer(false);
    if (folders.length >= MAX_WRITABLE_FOLDERS) {
      throw new RoomError('LIMIT_EXCEEDED', `${input.name} already has ${MAX_WRITABLE_FOLDERS} writable folders: remove one first, or give a folder that holds several`);
    }
    next = [...folders, folder];
    data = { added: folder, folders: next };
  } else {
    const given = input.remove as string;
    const match = folders.includes(given) ? given : folders.find((f) => f === realOrSelf(given));
    if (match === undefined) {
      throw new RoomError('NOT_FOUND', `${given} is not one of ${input.name}'s writable folders: see "ce participant folders ${input.name}"`);
    }
    next = folders.filter((f) => f !== match);
    data = { removed: match, folders: next };
  }
  ctx.commit(() => {
    room.participants.setWritableFolders(record.id, next);
    return { value: undefined, events: [{ kind: 'participant.folders_changed', actor: caller.name, subject: record.name, data }] };
  });
  return answer(true);
}
