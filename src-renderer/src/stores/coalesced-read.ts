/**
 * One re-read at a time: asks made while a read is running fold into a single read after it, so a burst of
 * change-feed hints costs at most two reads (never polling, never a queue of stale reads).
 */
export function coalesced(read: () => Promise<void>): () => Promise<void> {
  let inFlight: Promise<void> | null = null;
  let again = false;
  return () => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      try {
        do {
          again = false;
          await read();
        } while (again);
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  };
}

export function describeError(error: unknown, what: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${what}: ${message}`;
}
