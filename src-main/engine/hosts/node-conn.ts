import type net from 'node:net';
import { childProcess } from '../platform/child-process';
import { sshArgs, sshEnv, type SshTarget } from './ssh';

/** One connection to a host's node (node-link.ts): the relay's ssh process, or a socket the link's ControlMaster forwards (node-forward.ts). */
export interface Conn {
  write(text: string): void;
  /** Ends it at once (a refusal, no hello in time). */
  kill(): void;
  /** Ends it as the link closes (the relay's input ended): the node goes on. */
  end(): void;
}

/** What a connection hands its link: the node's bytes, ssh's own words (the relay's stderr), its end. */
export interface ConnEvents {
  data(bytes: Buffer): void;
  stderr(text: string): void;
  close(): void;
}

/** A connection over a forwarded socket: ended as the relay is (what was written goes first, nothing waits on the node). */
export function socketConn(socket: net.Socket, on: ConnEvents): Conn {
  socket.on('data', on.data);
  socket.on('error', () => socket.destroy());
  socket.on('close', on.close);
  return { write: (text) => socket.write(text), kill: () => socket.destroy(), end: () => socket.destroySoon() };
}

/**
 * The relay: `ssh HOST` running `commonroom node --stdio` in the host's login shell (for its PATH), which starts
 * the node when none runs. The person's environment without the room's own variables: nothing of the room's
 * reaches ssh (SendEnv).
 */
export function relayConn(target: SshTarget, roomKey: string, on: ConnEvents): Conn {
  const remote = `exec $SHELL -l -c 'exec commonroom node --stdio --for ${roomKey}'`;
  const child = childProcess().spawn('ssh', sshArgs(target, remote), { env: sshEnv(process.env), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.on('data', on.data);
  child.stderr.on('data', (b: Buffer) => on.stderr(b.toString()));
  child.stdin.on('error', () => {});
  child.on('error', () => {});
  child.on('close', on.close);
  return {
    write: (text) => child.stdin.write(text),
    kill: () => child.kill('SIGKILL'),
    end: () => {
      child.stdin.end();
      child.kill('SIGTERM');
    },
  };
}
