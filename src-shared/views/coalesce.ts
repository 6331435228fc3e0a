// One refresh at a time per view: a call while one is in flight asks for one more pass after it,
// so a burst of host events costs one extra round trip, not one per event.
export function coalesced(load: () => Promise<void>): () => Promise<void> {
  let inFlight: Promise<void> | null = null;
  let again = false;
  return () => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        again = false;
        await load();
      } while (again);
    })().finally(() => { inFlight = null; });
    return inFlight;
  };
}
