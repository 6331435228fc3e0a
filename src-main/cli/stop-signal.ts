// SIGINT/SIGTERM as a promise, listened for from the first moment of a long-running command: a
// signal that arrives while the host is still starting (or just as it prints that it is ready)
// stops it cleanly once started, instead of killing it halfway.
export interface StopSignal {
  /** Resolves with the signal's name once one arrives. */
  readonly requested: Promise<NodeJS.Signals>;
  dispose(): void;
}

export function listenForStop(): StopSignal {
  let resolve!: (s: NodeJS.Signals) => void;
  const requested = new Promise<NodeJS.Signals>((r) => { resolve = r; });
  const onSignal = (signal: NodeJS.Signals): void => {
    dispose();
    resolve(signal);
  };
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { requested, dispose };
}
