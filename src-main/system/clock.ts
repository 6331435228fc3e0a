// Time in seconds. The app reads the wall clock; the simulator drives a virtual one, so every
// rule that looks at time (backoff, sync intervals, "new uploads", quiet hours) runs unchanged.
export interface Clock {
  now(): number;
}

export const wallClock: Clock = { now: () => Date.now() / 1000 };

export class VirtualClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    this.t = t;
  }
}
