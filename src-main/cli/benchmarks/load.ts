// Windows under load (issue 9): ten real WebSocket+HTTP windows against a real `serve` dispatching
// on a 78,000-item library; each read's cost in the host and a cheap request's wait
// (docs/benchmarks.md "Windows under load").
import { numberFlag } from '../args';
import { runLoadBench, type LoadBenchResult, type OpenInHost } from '../../bench/load-bench';
import { Host } from '../../host/host';
import { createHandlers } from '../../api/handlers';
import { dispatch } from '../../api/dispatch';
import { BacklotError } from '../../../src-shared/errors';
import { print, seedOf, type Benchmark } from './types';
import { CliUsageError } from '../args';
import { ENGINE_PRIORITIES, type EnginePriority } from '../../../src-shared/settings/settings-schema';
import { WINDOW_CLIENTS, type WindowClient } from '../../bench/window-http';

export const loadBench: Benchmark = {
  name: 'load',
  usage: 'load [--items N --channels M --windows W --seconds S --chunk-ms MS --one-shot-engines --window-threads --engine-burn --engine-priority low|normal --window-client http|fetch --serve-bin OTHER/bin/backlot.mjs]',
  async run(values) {
    const priority = values['engine-priority'];
    if (priority !== undefined && !(ENGINE_PRIORITIES as readonly unknown[]).includes(priority)) {
      throw new CliUsageError(`--engine-priority must be one of ${ENGINE_PRIORITIES.join(', ')}, got "${String(priority)}".`);
    }
    const client = values['window-client'];
    if (client !== undefined && !(WINDOW_CLIENTS as readonly unknown[]).includes(client)) {
      throw new CliUsageError(`--window-client must be one of ${WINDOW_CLIENTS.join(', ')}, got "${String(client)}".`);
    }
    const r = await runLoadBench({
      items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)),
      seed: seedOf(values.seed), windows: Math.floor(numberFlag(values.windows, 'windows', 10)),
      durationS: numberFlag(values.seconds, 'seconds', 30), chunkMs: numberFlag(values['chunk-ms'], 'chunk-ms', 20),
      serveBin: values['serve-bin'], oneShotEngines: values['one-shot-engines'] === true,
      windowThreads: values['window-threads'] === true, engineBurn: values['engine-burn'] === true,
      ...(priority !== undefined ? { enginePriority: priority as EnginePriority } : {}),
      ...(client !== undefined ? { windowClient: client as WindowClient } : {}),
    }, openInHost);
    print(values, r, describeLoad);
  },
};

function describeLoad(r: LoadBenchResult): string {
  const row = (label: string, f: { calls: number; p50Ms: number; p99Ms: number; maxMs: number }) =>
    `  ${label.padEnd(58)} p50 ${String(f.p50Ms).padStart(7)} ms  p99 ${String(f.p99Ms).padStart(7)} ms  max ${String(f.maxMs).padStart(7)} ms  (${f.calls})`;
  return [
    `${r.items} items in ${r.channels} channels (seed ${r.seed}), built in ${r.buildMs} ms; test engines at ${r.chunkMs} ms a chunk${r.engineBurn === true ? ' of CPU (burning)' : ''}, ${r.oneShotEngines ? 'one process a unit' : 'long-lived (a build before session 8 starts one a unit)'}${r.enginePriority !== undefined ? `, engines.priority ${r.enginePriority}${r.enginePriorityRefused !== undefined ? ` (refused: ${r.enginePriorityRefused})` : ''}` : ''}`,
    'Each read\'s cost in the host (the API dispatcher in process, no HTTP):',
    ...r.readsInHost.map((x) => row(`${x.method} ${x.request}`, x)),
    'Each read alone (lanes paused, nothing running), over HTTP:',
    ...r.reads.map((x) => (x.refused ? `  ${x.method} ${x.request}: refused (${x.refused})` : row(`${x.method} ${x.request} [${x.bytes} B]`, x))),
    `${r.windows} windows (${r.windowThreads === true ? 'each on a thread of its own, as each window of the app is a process of its own' : 'all on this process\'s one event loop'}; client ${r.windowClient ?? 'fetch'}) following the dispatching host for ${r.durationS} s (${r.unitsDone} units done, ${r.unitsPerS}/s; ${r.eventsPerWindowPerS} events per window per s):`,
    row('cheap request (lanes.list every 100 ms per window)', r.cheap),
    `    its slowest 1% (${r.cheapTail?.probes ?? 0}) on average: ${r.cheapTail ? `${r.cheapTail.toHostMs} ms before the host's loop took it, ${r.cheapTail.inHostMs} ms in the host, ${r.cheapTail.backMs} ms back to the window and in its loop` : 'n/a (the host gives no Server-Timing)'}`,
    ...r.windowReads.map((x) => row(`window re-read ${x.method}`, x)),
    `host CPU while followed: ${r.hostCpu ? `${r.hostCpu.processS} s (${r.hostCpu.processMsPerUnit} ms a unit), main thread ${r.hostCpu.mainThreadS} s (${r.hostCpu.mainThreadMsPerUnit} ms a unit)` : 'n/a'}; load average ${r.loadAverage[0]} -> ${r.loadAverage[1]}`,
    `other CPU while followed: ${r.otherCpu ? `the host's engines ${r.otherCpu.enginesS} s (${r.otherCpu.enginesMsPerUnit} ms a unit), the windows' clients (this process, every thread) ${r.otherCpu.windowsS} s` : 'n/a'}`,
    `host RSS ${r.hostRssMb ?? 'n/a'} MB; failed calls ${r.failures}${r.failureSays.length > 0 ? ` (first said: ${r.failureSays.join('; ')})` : ''}`,
  ].join('\n');
}

/** The library in this process behind the API dispatcher, as a window's call reaches it (no HTTP). */
const openInHost: OpenInHost = (databaseFile) => {
  const host = new Host({ databaseFile });
  const handlers = createHandlers(host);
  return {
    async call(method, payload) {
      const outcome = await dispatch(handlers, method, payload);
      if (!outcome.ok) throw new BacklotError('BENCH_FAILED', `${method} was refused: ${outcome.error.message}`);
      return outcome.result;
    },
    close: () => host.close(),
  };
};
