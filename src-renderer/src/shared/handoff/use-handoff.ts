import { useEffect, useState } from 'react';
import type { HandoffView } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';

/**
 * One handoff by id (opened from Activity, say), read with handoff_get and again on each of its events; null
 * reads nothing. `error` says why it could not be read.
 */
export function useHandoff(id: string | null): { handoff: HandoffView | null; error: string | null } {
  const { client } = useRoom();
  const [state, setState] = useState<{ id: string | null; handoff: HandoffView | null; error: string | null }>({ id: null, handoff: null, error: null });
  useEffect(() => {
    if (id === null) return;
    let live = true;
    const read = () =>
      client.call('handoff_get', { handoffId: id }).then(
        (r) => live && setState({ id, handoff: r.handoff, error: null }),
        (e: unknown) => live && setState({ id, handoff: null, error: describeError(e, `could not read ${id}`) }),
      );
    void read();
    const off = client.on((event) => {
      if (event.kind.startsWith('handoff.') && event.subject === id) void read();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, id]);
  // what was read for another id is not this one's
  return state.id === id ? { handoff: state.handoff, error: state.error } : { handoff: null, error: null };
}
