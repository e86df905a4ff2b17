import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sshControl, type SshTarget } from './ssh';

/**
 * A host's node reached straight through the link's ControlMaster: `ssh -O forward -L LOCAL:REMOTE` asks the
 * master to listen on a Unix socket in the room's control folder (0700, hidden from every agent's sandbox, as
 * the master's own socket is; ssh binds it 0600, StreamLocalBindMask's default) and to carry each connection
 * to the node's socket on the host (direct-streamlocal). No process of the room's runs on either side for it:
 * the stdio relay (`commonroom node --stdio`) and its two copies of every byte are gone from the path. Nothing
 * listens on a port, here or there. What it needs: a master already running (the relay's first connection makes
 * it), and an sshd that allows streamlocal forwarding (AllowStreamLocalForwarding, its default); without them
 * the link goes on through the relay.
 */

/** A path ssh can take in a forward's spec (`-L LOCAL:REMOTE`, split at ':'), and a socket can have. */
export function forwardablePath(p: string): boolean {
  return p.startsWith('/') && !/[:\s]/.test(p) && Buffer.byteLength(p) < 100;
}

/** The local end of a host's node forward: one per host and room, in the control folder. */
export function localNodeSocket(target: SshTarget, roomKey: string): string {
  const tag = crypto.createHash('sha256').update(`${target.alias}\0${roomKey}`).digest('hex').slice(0, 16);
  return path.join(target.controlDir, `node-${tag}.sock`);
}

function connectUnix(file: string): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const s = net.connect(file);
    s.once('connect', () => {
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', () => resolve(null));
  });
}

/**
 * A connection to the node's socket `remote` on the host through the master's forward, asked for when none
 * stands (or it went with a master that ended); null when the forward cannot be made (no master, a spec ssh
 * cannot take, an sshd that refuses it). A forward whose far end is not there (no node runs) still connects
 * here: it closes before the node's hello, which the caller reads as "not this way".
 */
export async function connectForwarded(target: SshTarget, roomKey: string, remote: string, env: NodeJS.ProcessEnv): Promise<net.Socket | null> {
  const local = localNodeSocket(target, roomKey);
  if (!forwardablePath(local) || !forwardablePath(remote)) return null;
  const standing = await connectUnix(local);
  if (standing) return standing;
  // a file left by a master that ended, or a forward to an older socket path: asked for afresh
  const spec = `${local}:${remote}`;
  await sshControl(target, ['-O', 'cancel', '-L', spec], env);
  fs.rmSync(local, { force: true });
  const made = await sshControl(target, ['-O', 'forward', '-L', spec], env);
  if (made.code !== 0) return null;
  return connectUnix(local);
}
