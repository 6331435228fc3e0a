// `backlot run`: the host dispatching without a window, with the production engines unless told
// otherwise. One line per finished unit (a progress bar on a TTY); with --until-idle it exits 0 once
// nothing runs and nothing can start, saying what is left held and which preflights failed; after
// --timeout it stops cleanly and exits 1.
import path from 'node:path';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { databaseFile } from '../data-dir';
import { engineProfileFlag, testEngineOptions } from '../engine-flags';
import { listenForStop } from '../stop-signal';
import { openCliApp } from '../app';
import { parseListen } from '../../pools/worker-door/door-server';
import { onFatalStop } from '../../system/uncaught';
import type { BacklotApp } from '../../dispatch/backlot-app';
import { idleSummary } from '../../dispatch/idle-summary';
import type { UnitEnded } from '../../dispatch/dispatcher';
import { CATALOG, type OperationId } from '../../../src-shared/catalog/operations';
import { RunProgressLine } from '../progress-line';

const USAGE = 'run [--data DIR] [--until-idle] [--timeout S] [--engines production|test] [--json] [--worker-listen HOST:PORT]';

type Ending = 'idle' | 'timeout' | 'signal';

export const runCommand: Command = {
  name: 'run',
  summary: 'Dispatch work without a window (until idle, a timeout or Ctrl-C)',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      data: { type: 'string' }, 'until-idle': { type: 'boolean' }, timeout: { type: 'string' },
      engines: { type: 'string' }, json: { type: 'boolean' }, 'test-chunk-ms': { type: 'string' }, 'worker-listen': { type: 'string' },
    }, USAGE);
    if (positionals.length > 0) throw new CliUsageError(`run takes no arguments, got "${positionals[0]}". Usage: backlot ${USAGE}`);
    const engines = engineProfileFlag(values.engines);
    const test = testEngineOptions(engines, values['test-chunk-ms'], process.env.BACKLOT_TEST_FAULTS, process.env.BACKLOT_TEST_LONG_LIVED);
    const timeoutS = values.timeout === undefined ? null : Number(values.timeout);
    if (timeoutS !== null && !(Number.isFinite(timeoutS) && timeoutS > 0)) throw new CliUsageError(`--timeout must be a positive number of seconds, got "${values.timeout}".`);
    const json = values.json === true;
    // Checked here even without a pool, so a typo is found before the day a pool is added.
    if (values['worker-listen'] !== undefined) parseListen(values['worker-listen']);

    const stop = listenForStop();
    let app: BacklotApp;
    try {
      app = await openCliApp({ dataDir: path.dirname(databaseFile(values.data)), dispatch: true, engines, test, workerListen: values['worker-listen'] });
    } catch (e) {
      stop.dispose();
      throw e;
    }
    // An error nothing else caught closes the app (open runs interrupted) before the process exits.
    const forgetFatalStop = onFatalStop(() => app.close());
    // On stderr, so --json's stdout stays one JSON object per line.
    if (app.workerDoor) process.stderr.write(`backlot: worker door for the pools at ${app.workerDoor.url}\n`);
    // Requeued units (their inputs changed while they ran) are counted apart: they are no failure.
    const counts = { units: 0, failed: 0, requeued: 0 };
    const bar = !json && process.stdout.isTTY ? new RunProgressLine(process.stdout) : null;
    const offEnded = app.dispatcher.onUnitEnded((e) => {
      counts.units++;
      if (e.result.outcome === 'failed') counts.failed++;
      if (e.result.outcome === 'requeued') counts.requeued++;
      bar?.clear();
      process.stdout.write(`${json ? JSON.stringify(unitJson(app, e)) : unitText(app, e)}\n`);
      bar?.draw(counts.units, reachableTotal(app), app.dispatcher.running().length);
    });
    let timer: NodeJS.Timeout | undefined;
    let offSettled = (): void => undefined;
    const ending = await new Promise<Ending>((resolve) => {
      void stop.requested.then(() => resolve('signal'));
      if (timeoutS !== null) timer = setTimeout(() => resolve('timeout'), timeoutS * 1000);
      if (values['until-idle']) {
        offSettled = app.dispatcher.onSettled(() => resolve('idle'));
        if (app.dispatcher.isSettled()) resolve('idle');
      }
    });
    clearTimeout(timer);
    offSettled();
    offEnded();
    stop.dispose();
    bar?.clear();
    const now = app.host.now();
    const summary = { units: counts.units, failed: counts.failed, requeued: counts.requeued, ...idleSummary(app.dispatcher.arbiter, reachableByOperation(app), now) };
    await app.close();
    forgetFatalStop();
    if (json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else {
      const held = summary.held.map((h) => `${h.lane} held (${h.code})`);
      const preflight = summary.preflight.map((p) => `${p.lane} cannot start (${p.code})`);
      const ended = ending === 'idle' ? 'Nothing more can run now' : ending === 'timeout' ? `Stopped after ${timeoutS} s` : 'Stopped';
      process.stdout.write(`${ended}: ${summary.units} ${summary.units === 1 ? 'unit' : 'units'} finished, ${summary.failed} failed${summary.requeued > 0 ? `, ${summary.requeued} requeued (inputs changed; run again)` : ''}.${[...held, ...preflight].length > 0 ? ` ${[...held, ...preflight].join('; ')}.` : ''}\n`);
    }
    return ending === 'timeout' ? 1 : 0;
  },
};

function nameOf(app: BacklotApp, e: UnitEnded): string {
  const item = app.host.library.item(e.unit.itemId);
  return item ? item.title : app.host.library.channel(e.unit.channelId)?.title ?? e.unit.itemId;
}

function unitText(app: BacklotApp, e: UnitEnded): string {
  const seconds = (e.endedAt - e.unit.startedAt).toFixed(1);
  const outcome = e.result.outcome === 'done' ? 'done  ' : `${e.result.outcome} ${e.result.code}`;
  return `${outcome.padEnd(8)} ${e.unit.operation.padEnd(16)} ${nameOf(app, e)}  (${e.unit.lane}, ${seconds} s)`;
}

function unitJson(app: BacklotApp, e: UnitEnded): Record<string, unknown> {
  return {
    unit: {
      operation: e.unit.operation, item: e.unit.itemId, channel: e.unit.channelId, title: nameOf(app, e), lane: e.unit.lane,
      run: e.unit.runId, outcome: e.result.outcome, ...(e.result.outcome !== 'done' ? { code: e.result.code } : {}),
      seconds: Number((e.endedAt - e.unit.startedAt).toFixed(3)),
    },
  };
}

/** Missing + stale work per operation, from the kept counts (running work is counted apart). */
function reachableByOperation(app: BacklotApp): Map<OperationId, number> {
  app.host.work.flushCounts();
  const rows = app.host.db.prepare("SELECT operation, SUM(n) AS n FROM work_counts WHERE state IN ('missing', 'stale') GROUP BY operation").all() as { operation: OperationId; n: number }[];
  const out = new Map<OperationId, number>(CATALOG.map((o) => [o.id, 0]));
  for (const r of rows) out.set(r.operation, r.n);
  for (const u of app.dispatcher.running()) out.set(u.operation, Math.max(0, (out.get(u.operation) ?? 0) - 1));
  return out;
}

function reachableTotal(app: BacklotApp): number {
  let n = 0;
  for (const v of reachableByOperation(app).values()) n += v;
  return n;
}
