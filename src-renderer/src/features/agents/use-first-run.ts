import { useShells } from '../../room-context';
import { useParticipants } from '../../stores/feature-stores';

/** A room on its first start: read, no agent ever added, no shell open (so there is nothing yet to watch). */
export function useFirstRun(): boolean {
  const loaded = useParticipants((s) => s.loaded);
  const noAgent = useParticipants((s) => s.participants.every((p) => p.role === 'operator'));
  const shellsLoaded = useShells((s) => s.loaded);
  const noShell = useShells((s) => s.shells.length === 0);
  return loaded && noAgent && shellsLoaded && noShell;
}
