import { useEffect, useState } from 'react';
import type { RoomInfo } from '../../../../src-main/common/dto';
import { useRoom } from '../../room-context';

/** What an agent's `write` grants on this machine: whether its shells and stages run in the OS sandbox. */
export function SandboxNote(): React.JSX.Element | null {
  const { client } = useRoom();
  const [sandbox, setSandbox] = useState<RoomInfo['sandbox'] | null>(null);
  useEffect(() => {
    let live = true;
    client.call('room_info', {}).then(
      (info) => live && setSandbox(info.sandbox),
      () => undefined,
    );
    return () => void (live = false);
  }, [client]);
  if (!sandbox) return null;
  const guarded = sandbox.kind !== 'none';
  return (
    <p className={`sandbox-note ${guarded ? 'sandbox-on' : 'sandbox-off'}`} role={guarded ? 'note' : 'alert'} data-testid="sandbox-note">
      {guarded ? (
        <>
          <strong>Agents run in a sandbox ({sandbox.kind}).</strong> With <code>write</code>, an agent opens shells and runs graphs as you, on your
          network, but cannot read this room&apos;s tokens, database, lock or logs, and writes only its working folder, temp folders, tool
          caches and its own client&apos;s state: the rest of your files, your start-up files and each repository&apos;s <code>.git/config</code> and
          hooks it only reads (Writable folders, below, lets it write more).
        </>
      ) : (
        <>
          <strong>No sandbox for agents on this machine.</strong> {sandbox.message.replace(/^none: /, '')}. Give <code>write</code> only to agents you
          would let use your account.
        </>
      )}
    </p>
  );
}
