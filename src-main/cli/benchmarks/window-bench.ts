// `backlot bench window`: the window's figures (docs/benchmarks.md "The window"), measured in
// Debian's Chromium against the headless shell: the library list's reads at 78,000 items, the first
// load of the window and the size of the built renderer, scrolling the whole list (frame times with
// the frame-rate limit lifted, so a frame's time is its own work, and memory), and the time from a
// unit's progress event in the host to the window showing it. A development tool: it needs the
// playwright-core devDependency and /usr/bin/chromium (or BACKLOT_CHROMIUM).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Host } from '../../host/host';
import { loadCorpus } from '../../bench/load-corpus';
import { generateCorpus } from '../../../src-shared/corpus/generate';
import { percentile } from '../../sim/metrics';
import { createHandlers } from '../../api/handlers';
import { DEFAULT_RENDERER_DIR, startHeadlessApp } from '../../shells/headless/start';
import { openCliApp } from '../app';
import { DATABASE_FILE_NAME } from '../../db/connection';
import type { ApiRequest } from '../../../src-shared/api/contract';

export interface WindowBench {
  items: number;
  machine: { cpus: number; cpuModel: string; memoryGb: number; chromium: string };
  reads: Record<string, { p50Ms: number; p95Ms: number }>;
  firstLoad: { p50Ms: number; loads: number[] };
  renderer: { files: { file: string; bytes: number; gzipBytes: number }[]; totalBytes: number; totalGzipBytes: number; firstLoadBytes: number; firstLoadGzipBytes: number };
  scroll: { frames: number; p50Ms: number; p95Ms: number; maxMs: number; rowsScrolled: number; jsHeapMb: number; domNodes: number };
  eventToScreen: { samples: number; p50Ms: number; p95Ms: number; maxMs: number };
}

const round = (x: number) => Math.round(x * 100) / 100;

/** What runs inside the page, as the page's own JavaScript (this file is host code, with no DOM types). */
const PAGE = {
  /** Stamps the first row drawn, from the start of the navigation (performance.now() is 0 there). */
  markFirstRow: `new MutationObserver((_m, obs) => {
    if (document.querySelector('.item-row .item-title')) { window.__firstRow = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true });`,
  /** Resolves with the first row's time once it is drawn. */
  firstRow: `new Promise((resolve) => {
    const check = () => (typeof window.__firstRow === 'number' ? resolve(window.__firstRow) : requestAnimationFrame(check));
    check();
  })`,
  /** Resolves with the stamps once there are n of them. */
  marksOnce: `(n) => new Promise((resolve) => {
    const check = () => (window.__marks.length >= n ? resolve(window.__marks.slice()) : setTimeout(check, 100));
    check();
  })`,
  /** A steady fling of four rows a frame, and every 50 frames a jump far down; each frame's time. */
  scroll: `async (count) => {
    const el = document.querySelector('[data-testid="item-scroller"]');
    const deltas = [];
    let last = performance.now();
    let rows = 0;
    for (let i = 0; i < count; i++) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      deltas.push(now - last);
      last = now;
      const before = el.scrollTop;
      el.scrollTop = i % 50 === 49 ? Math.random() * (el.scrollHeight - el.clientHeight) : el.scrollTop + 52 * 4;
      rows += Math.abs(el.scrollTop - before) / 52;
    }
    return { deltas: deltas.slice(1), rows: Math.round(rows) };
  }`,
  /** Stamps every progress bar that moves: a new ratio reached the screen (a new unit's first bar is not counted). */
  watchBars: `window.__marks = [];
  new MutationObserver((list) => { for (const m of list) if (m.type === 'attributes') window.__marks.push(Date.now()); })
    .observe(document.querySelector('main'), { subtree: true, attributes: true, attributeFilter: ['aria-valuenow'] });`,
};
const stats = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return { p50Ms: round(percentile(s, 0.5)), p95Ms: round(percentile(s, 0.95)) };
};

/** A library of `items` with titles a person would give, in one transaction (src-main/bench/load-corpus.ts). */
function buildLibrary(dataDir: string, items: number, channels: number): void {
  const host = new Host({ databaseFile: path.join(dataDir, DATABASE_FILE_NAME), durable: false });
  try {
    loadCorpus(host, generateCorpus({ seed: 1, channels, items, durationS: { min: 60, max: 10800 }, have: { download: 0.7, transcribe: 0.4, diarize: 0.3, 'attribute-words': 0.2, digest: 0.1 } }), Date.now() / 1000);
    const words = ['Morning', 'Evening', 'Interview', 'Lecture', 'Notes', 'Report', 'Session', 'Talk', 'Review', 'Episode'];
    host.db.function('bench_title', (n: number) => `${words[n % words.length]} ${Math.floor(n / words.length) + 1}: ${words[(n * 7) % words.length].toLowerCase()} and ${words[(n * 3) % words.length].toLowerCase()}`);
    host.db.exec("UPDATE items SET title = bench_title(CAST(substr(id, 3) AS INTEGER))");
    host.db.exec('ANALYZE');
  } finally {
    host.close();
  }
}

async function timeReads(dataDir: string): Promise<WindowBench['reads']> {
  const app = await openCliApp({ dataDir });
  try {
    const h = createHandlers(app.host, app.dispatcher);
    const total = (await h['items.list']({ offset: 0, limit: 1 })).total;
    const channel = app.host.library.channels()[0].id;
    const cases: Record<string, ApiRequest<'items.list'>[]> = {};
    for (const sort of ['newest', 'oldest', 'title', 'longest', 'shortest'] as const) {
      cases[`items.list ${sort}`] = [0, Math.floor(total / 2), total - 100].map((offset) => ({ offset, limit: 100, sort }));
    }
    cases['items.list one channel'] = [0, 500, 2000].map((offset) => ({ offset, limit: 100, channels: [channel], sort: 'title' as const }));
    cases['items.list transcribe: missing'] = [0, 5000, 20_000].map((offset) => ({ offset, limit: 100, state: { operation: 'transcribe' as const, state: 'missing' as const } }));
    cases['items.list digest: done, oldest'] = [0, 3000, 7000].map((offset) => ({ offset, limit: 100, sort: 'oldest' as const, state: { operation: 'digest' as const, state: 'done' as const } }));
    const out: WindowBench['reads'] = {};
    for (const [name, requests] of Object.entries(cases)) {
      const times: number[] = [];
      for (let round_ = 0; round_ < 20; round_++) {
        for (const r of requests) {
          const t0 = performance.now();
          await h['items.list'](r);
          times.push(performance.now() - t0);
        }
      }
      out[name] = stats(times);
    }
    for (const method of ['lanes.detail', 'library.list', 'snapshot.get'] as const) {
      const times: number[] = [];
      for (let i = 0; i < 40; i++) {
        const t0 = performance.now();
        await h[method]({});
        times.push(performance.now() - t0);
      }
      out[method] = stats(times);
    }
    return out;
  } finally {
    await app.close();
  }
}

function rendererSize(): WindowBench['renderer'] {
  const files: WindowBench['renderer']['files'] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const body = fs.readFileSync(p);
        files.push({ file: path.relative(DEFAULT_RENDERER_DIR, p), bytes: body.length, gzipBytes: zlib.gzipSync(body, { level: 9 }).length });
      }
    }
  };
  walk(DEFAULT_RENDERER_DIR);
  // What the first page needs: the page, its entry script and styles (views load their own chunks).
  const html = fs.readFileSync(path.join(DEFAULT_RENDERER_DIR, 'index.html'), 'utf8');
  const first = files.filter((f) => f.file === 'index.html' || html.includes(f.file.replaceAll(path.sep, '/')));
  const sum = (list: typeof files, k: 'bytes' | 'gzipBytes') => list.reduce((a, f) => a + f[k], 0);
  return { files, totalBytes: sum(files, 'bytes'), totalGzipBytes: sum(files, 'gzipBytes'), firstLoadBytes: sum(first, 'bytes'), firstLoadGzipBytes: sum(first, 'gzipBytes') };
}

export async function runWindowBench(options: { items: number; channels: number; frames: number; samples: number }): Promise<WindowBench> {
  const { chromium } = await import('playwright-core');
  const executablePath = process.env.BACKLOT_CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(path.join(DEFAULT_RENDERER_DIR, 'index.html'))) throw new Error(`The window is not built (no ${DEFAULT_RENDERER_DIR}); run "npm run build:renderer" first.`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-window-'));
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-events-'));
  // Frames unthrottled: a frame's time is then the work it took (script, style, layout, paint).
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-frame-rate-limit', '--disable-gpu-vsync', '--enable-precise-memory-info'] });
  try {
    buildLibrary(dataDir, options.items, options.channels);
    const reads = await timeReads(dataDir);

    const served = await startHeadlessApp({ dataDir, dispatch: false }, openCliApp);
    let firstLoad: WindowBench['firstLoad'];
    let scroll: WindowBench['scroll'];
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      // Marks the first row drawn, from the start of the navigation (performance.now() is 0 there).
      await page.addInitScript({ content: PAGE.markFirstRow });
      const loads: number[] = [];
      await page.goto(served.server.url);
      for (let i = 0; i < 5; i++) {
        if (i > 0) await page.reload();
        loads.push(round(await page.evaluate(PAGE.firstRow) as number));
      }
      firstLoad = { p50Ms: round(percentile([...loads].sort((a, b) => a - b), 0.5)), loads };

      const frames = await page.evaluate(`(${PAGE.scroll})(${options.frames})`) as { deltas: number[]; rows: number };
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      // What the page holds, not what it has yet to collect: a garbage collection first.
      await cdp.send('HeapProfiler.collectGarbage');
      const metrics = (await cdp.send('Performance.getMetrics')).metrics as { name: string; value: number }[];
      const metric = (n: string) => metrics.find((m) => m.name === n)?.value ?? 0;
      const sorted = [...frames.deltas].sort((a, b) => a - b);
      scroll = {
        frames: sorted.length, p50Ms: round(percentile(sorted, 0.5)), p95Ms: round(percentile(sorted, 0.95)), maxMs: round(sorted.at(-1) ?? 0),
        rowsScrolled: frames.rows, jsHeapMb: round(metric('JSHeapUsedSize') / 1048576), domNodes: metric('Nodes'),
      };
      await context.close();
    } finally {
      await served.stop();
    }

    const eventToScreen = await measureEventToScreen(browser, small, options.samples);
    return {
      items: options.items,
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGb: round(os.totalmem() / 1073741824), chromium: browser.version() },
      reads, firstLoad, renderer: rendererSize(), scroll, eventToScreen,
    };
  } finally {
    await browser.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(small, { recursive: true, force: true });
  }
}

/**
 * Real units on the test engines report progress; each `progress-changed` the host emits is stamped,
 * and so is every change the Lanes page makes to a progress bar. A change's latency is its time less
 * the last emit before it (both on this machine's clock).
 */
async function measureEventToScreen(browser: Awaited<ReturnType<typeof import('playwright-core')['chromium']['launch']>>, dataDir: string, samples: number): Promise<WindowBench['eventToScreen']> {
  buildLibrary(dataDir, 40, 2);
  const served = await startHeadlessApp({ dataDir, dispatch: true, engines: 'test', test: { chunks: 20, chunkMs: 300 } }, openCliApp);
  const emits: number[] = [];
  const stop = served.host.onEvent((e) => { if (e === 'progress-changed') emits.push(Date.now()); });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${served.server.url}#/lanes`);
    await page.waitForSelector('section.lane');
    await page.evaluate(PAGE.watchBars);
    const start = emits.length;
    const marks = await page.evaluate(`(${PAGE.marksOnce})(${samples})`) as number[];
    const latencies: number[] = [];
    let j = start;
    for (const m of marks) {
      while (j + 1 < emits.length && emits[j + 1] <= m) j++;
      if (emits[j] !== undefined && emits[j] <= m) latencies.push(m - emits[j]);
    }
    await context.close();
    const sorted = latencies.sort((a, b) => a - b);
    return { samples: sorted.length, p50Ms: round(percentile(sorted, 0.5)), p95Ms: round(percentile(sorted, 0.95)), maxMs: round(sorted.at(-1) ?? 0) };
  } finally {
    stop();
    await served.stop();
  }
}
