import { useEffect, useState } from 'react';
import type { AgentRunView } from '../../../src-main/common/methods/agents';
import { useRoom, useShells } from '../room-context';

/**
 * The agents the room started on a task that are "ready for review?" (agent_list's review: idle at their prompt,
 * with new commits in their worktree). Asked again when an agent terminal's status changes (the room reads the
 * worktrees then), not on every byte.
 */
export function useReadyForReview(): AgentRunView[] {
  const { client } = useRoom();
  // what can change the answer: an agent terminal starting, ending, or changing status
  const key = useShells((s) =>
    s.shells
      .filter((sh) => sh.agent)
      .map((sh) => `${sh.id}:${sh.alive ? sh.status.state : 'ended'}@${sh.status.since}`)
      .join(','),
  );
  const [ready, setReady] = useState<AgentRunView[]>([]);
  useEffect(() => {
    if (key === '') {
      setReady([]);
      return;
    }
    let live = true;
    client.call('agent_list', {}).then(
      (r) => live && setReady(r.agents.filter((a) => a.review !== null)),
      () => undefined, // an older room, or the link dropped: the next change asks again
    );
    return () => {
      live = false;
    };
  }, [client, key]);
  return ready;
}
