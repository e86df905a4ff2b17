import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { ShellAgent } from '../../common/methods/shells';
import type { EngineContext } from '../room/index';
import { procTags } from '../core/ids';
import { tagEnv } from '../process/process-tree';
import { defaultShell } from '../platform/default-shell';
import { integrationPlan } from './shell-integration';
import { writeIntegrationFiles } from './integration-files';
import { shellIntegrationFolder } from '../core/room-paths';
import type { ShellSpawn } from './shell-spawn';

export interface OpenShell {
  name?: string | undefined;
  cwd?: string | undefined;
  shell?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  /** Variables of the room process's environment the shell does not get (agents-feature.ts); not an input of shell_open. */
  unsetEnv?: readonly string[] | undefined;
  cols?: number | undefined;
  rows?: number | undefined;
  /** The agent the room starts in it (agents-feature.ts); not an input of shell_open. */
  agent?: ShellAgent | undefined;
  /** That agent's own run folder (agents-feature.ts): readable in its sandbox, hidden from every other agent. */
  runFolder?: string | undefined;
}

/**
 * What shell_open spawns for `caller`: the program in its folder, with the room's shell integration (its marks,
 * tested in shell-integration.ts), its tag and its terminal's variables, placed by the room's launcher (an
 * agent's in the OS sandbox). `newId` is asked once the request is known to be good. Refuses a folder or a
 * program that is not there.
 */
export function shellSpawnFor(ctx: EngineContext, defaultCwd: string, caller: Caller, newId: () => string, options: OpenShell): ShellSpawn {
  const limits = ctx.limits;
  const cwd = path.resolve(defaultCwd, options.cwd ?? '.');
  if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
    throw new RoomError('INVALID_INPUT', `cwd ${cwd} is not an existing folder`);
  }
  const file = options.shell ?? defaultShell();
  if (!fs.existsSync(file)) throw new RoomError('INVALID_INPUT', `shell ${file} does not exist: give a full path such as /bin/bash`);
  const id = newId();
  const tag = procTags.shell(ctx.room.id, id);
  const nonce = randomBytes(8).toString('hex');
  const userEnv: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  for (const name of options.unsetEnv ?? []) delete userEnv[name];
  const plan = integrationPlan({
    file,
    args: options.args ?? [],
    nonce,
    dir: writeIntegrationFiles(shellIntegrationFolder(ctx.room.paths.dataDir)),
    userEnv,
    pathSep: path.sep as '/' | '\\',
  });
  const base: NodeJS.ProcessEnv = { ...userEnv, ...plan.env, TERM: 'xterm-256color', COLORTERM: 'truecolor' };
  if (!base.LANG && !base.LC_ALL && !base.LC_CTYPE) base.LANG = 'C.UTF-8';
  const env = tagEnv(base, tag);
  // an agent's shell runs in the OS sandbox (its secrets hidden, its writes kept to its work), its variables set
  // inside it, never on the sandbox program; the person's own never does
  const placement = ctx.launcher.placementFor(caller.role);
  const launch = ctx.launcher.launch(placement, { file, args: plan.args, env, cwd, owner: caller.name, runFolder: options.runFolder });
  return {
    id,
    name: options.name ?? path.basename(file),
    owner: caller.name,
    file: launch.file,
    args: launch.args,
    shownFile: file,
    shownArgs: options.args ?? [],
    sandbox: placement.sandbox,
    cwd,
    env: launch.env,
    cols: options.cols ?? 120,
    rows: options.rows ?? 32,
    tag,
    scrollbackBytes: limits.shellScrollbackBytes,
    scrollbackLines: limits.shellScrollbackLines,
    screenScrollbackLines: limits.shellScreenScrollbackLines,
    integration: { mode: plan.mode, family: plan.family, nonce },
    agent: options.agent,
  };
}
