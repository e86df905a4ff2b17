/**
 * `commonroom service` in a throw-away home with `systemctl` on PATH being the stand-in
 * (systemctl-standin.mjs): for machines where systemd's user manager cannot be reached. HOME is the home's root,
 * so the unit goes to <root>/.config/systemd/user/commonroom.service.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN_COMMONROOM, makeHome, REPO, type TestHome } from './env';

export interface StandinHome {
  home: TestHome;
  env: NodeJS.ProcessEnv;
  /** Every systemctl call so far, as argv arrays. */
  calls(): string[][];
  unit: string;
}

export function standinHome(): StandinHome {
  const home = makeHome();
  const bin = path.join(home.root, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'systemctl'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(REPO, 'test/helpers/systemctl-standin.mjs')}" "$@"\n`, { mode: 0o755 });
  const env = { ...home.env, HOME: home.root, XDG_CONFIG_HOME: '', PATH: `${bin}:${process.env.PATH ?? ''}`, COMMONROOM_PORT: '0' };
  const log = path.join(home.root, '.systemctl-standin.log');
  const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]) : []);
  return { home, env, calls, unit: path.join(home.root, '.config/systemd/user/commonroom.service') };
}

/** Runs the built `commonroom` CLI to completion. */
export function commonroom(env: NodeJS.ProcessEnv, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN_COMMONROOM, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
