// Waiting on an in-process host by its own events, never by time: what the API and engine tests
// that open a library with openApp share.
import type { BacklotApp } from '../../src-main/app/open-app';

/** Resolves when `test` answers true: at once, or after a host event (every change the host makes emits one). */
export function untilHost(app: BacklotApp, test: () => boolean | Promise<boolean>): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (yes: boolean) => {
      if (!yes || done) return;
      done = true;
      stop();
      resolve();
    };
    const stop = app.host.onEvent(async () => finish(await test()));
    void Promise.resolve(test()).then(finish);
  });
}
