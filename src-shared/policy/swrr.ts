// Smooth weighted round-robin, as nginx's ngx_http_upstream_get_peer: every candidate's current
// weight grows by its weight, the largest wins (first declared on a tie) and pays back the total.
// Test vector: weights a=5, b=1, c=1 pick a a b a c a a.
export interface SwrrCandidate {
  id: string;
  weight: number;
  current: number;
}

/** Returns the index of the chosen candidate and mutates the current weights in place. */
export function swrrPick(candidates: SwrrCandidate[]): number {
  let total = 0;
  let best = -1;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i];
    c.current += c.weight;
    total += c.weight;
    if (best === -1 || c.current > candidates[best].current) best = i;
  }
  if (best !== -1) candidates[best].current -= total;
  return best;
}
