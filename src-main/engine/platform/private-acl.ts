import { childProcess } from './child-process';

/**
 * Private files on Windows. Mode bits mean nothing there (Node reports 0666 for every writable file and
 * chmod only toggles read-only), so the runner's 0600/0700 promise is kept by the file's ACL instead: right
 * after creating a token, lock, database or log file or a private folder, inherited entries are dropped and
 * the current user alone gets full control. Elsewhere this does nothing: the mode set at creation applies.
 */
export interface AclUser {
  /** DOMAIN\user, as Windows names the logged-in user (USERDOMAIN and USERNAME). */
  domain: string | undefined;
  name: string;
}

/** The icacls argv that leaves `target` readable and writable by `user` only (folders: and all they hold). */
export function privateAclCommand(target: string, user: AclUser, kind: 'file' | 'dir'): [string, string[]] {
  const who = user.domain ? `${user.domain}\\${user.name}` : user.name;
  const grant = kind === 'dir' ? `${who}:(OI)(CI)F` : `${who}:F`;
  return ['icacls', [target, '/inheritance:r', '/grant:r', grant, '/Q']];
}

/** On Windows, restricts `target` to the current user by ACL; a no-op on other platforms. */
export function restrictToUser(target: string, kind: 'file' | 'dir', platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): void {
  if (platform !== 'win32') return;
  const name = env.USERNAME;
  if (!name) throw new Error(`cannot restrict ${target} to the current user: USERNAME is not set`);
  const [file, args] = privateAclCommand(target, { domain: env.USERDOMAIN, name }, kind);
  childProcess().execFileSync(file, args, { windowsHide: true, stdio: 'ignore' });
}
