// The acquisition figures (issue 10, docs/benchmarks.md): engine overhead per unit (spawn,
// protocol, commit) cold and with a warm worker; a 1 GB loopback download through the direct
// engine beside curl from the same server in the same run; the sync of a 5,000-entry feed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { runEngine } from '../engines/runner';
import { EngineWorkers } from '../engines/workers';
import { nodeProgram } from '../engines/program-command';
import { engineProgram } from '../engines/program-file';
import { builtMainFile } from '../system/app-layout';
import { commitOutputs } from '../engines/commit-output';
import { Host } from '../host/host';
import { readListing } from '../library/listing';
import { applyListing } from '../library/apply-listing';
import { BacklotError } from '../../src-shared/errors';
import { processCpuSeconds } from './process-cpu';

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

function scratch(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `backlot-bench-${label}-`));
}

export interface OverheadResult {
  units: number; coldMedianMs: number; coldP90Ms: number; warmMedianMs: number; warmP90Ms: number;
  /** A cold unit's engine process: its CPU time, the mean over the units (null without /proc). */
  coldChildCpuMs: number | null;
}

/** Spawn + protocol + commit of a trivial job: a fresh process per unit, then one warm worker for all. */
export async function benchOverhead(units = 20): Promise<OverheadResult> {
  const dir = scratch('overhead');
  const command = nodeProgram(builtMainFile(path.join('bench', 'trivial-engine.js')));
  const one = async (i: number, run: (job: { jobId: string; operation: string; outputDir: string; input: Record<string, unknown> }) => Promise<import('../engines/runner').EngineOutcome>) => {
    const outputDir = path.join(dir, `job-${i}`);
    fs.mkdirSync(outputDir, { recursive: true });
    const t = performance.now();
    const outcome = await run({ jobId: `job-${i}`, operation: 'digest', outputDir, input: {} });
    if (!outcome.ok) throw new BacklotError('BENCH_FAILED', `the trivial engine failed: ${outcome.code}`);
    await commitOutputs(outcome.outputs.map((o) => o.path), [path.join(dir, 'final', `${i}.txt`)], () => undefined);
    return performance.now() - t;
  };
  try {
    const cold: number[] = [];
    // The engines are reaped by the time each unit ends: their CPU is what this process's children's rose by.
    const cpu0 = processCpuSeconds(process.pid);
    for (let i = 0; i < units; i++) cold.push(await one(i, (job) => runEngine(command, job)));
    const cpu1 = processCpuSeconds(process.pid);
    const coldChildCpuMs = cpu0 && cpu1 ? round(((cpu1.children - cpu0.children) * 1000) / units) : null;
    const workers = new EngineWorkers();
    const warm: number[] = [];
    await one(-1, (job) => workers.run('bench', command, job)); // starts the worker
    for (let i = 0; i < units; i++) warm.push(await one(units + i, (job) => workers.run('bench', command, job)));
    workers.stop();
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
    return { units, coldMedianMs: round(median(cold)), coldP90Ms: round(p90(cold)), warmMedianMs: round(median(warm)), warmP90Ms: round(p90(warm)), coldChildCpuMs };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A loopback server that sends `bytes` of random data from memory, with a Content-Length. */
async function bulkServer(bytes: number): Promise<{ url: string; close(): Promise<void> }> {
  const block = randomBytes(4 << 20);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes });
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const n = Math.min(block.length, bytes - sent);
        sent += n;
        if (!res.write(n === block.length ? block : block.subarray(0, n))) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.bin`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

export interface DownloadResult { bytes: number; rounds: number; engineMBps: number; curlMBps: number; ratio: number; engineSeconds: number[]; curlSeconds: number[] }

/** The direct engine and curl, alternating, from the same loopback server in the same run. */
export async function benchDownload(bytes = 1024 ** 3, rounds = 2): Promise<DownloadResult> {
  const server = await bulkServer(bytes);
  const dir = scratch('download');
  const command = nodeProgram(engineProgram('http'));
  const engineSeconds: number[] = [];
  const curlSeconds: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const outputDir = path.join(dir, `engine-${r}`);
      fs.mkdirSync(outputDir, { recursive: true });
      let t = performance.now();
      const outcome = await runEngine(command, { jobId: `dl-${r}`, operation: 'download', outputDir, input: { url: server.url, partialPath: path.join(dir, `p${r}`, 'media.part'), name: 'media', maxRedirects: 0, idleTimeoutMs: 60_000 } });
      if (!outcome.ok || outcome.outputs[0].bytes !== bytes) throw new BacklotError('BENCH_FAILED', `the direct engine failed: ${outcome.ok ? 'short' : outcome.code}`);
      engineSeconds.push((performance.now() - t) / 1000);
      fs.rmSync(outputDir, { recursive: true, force: true });
      const curlOut = path.join(dir, `curl-${r}.bin`);
      t = performance.now();
      await new Promise<void>((resolve, reject) => {
        const c = spawn('curl', ['--silent', '--fail', '--output', curlOut, '--', server.url], { stdio: 'ignore' });
        c.on('error', reject);
        c.on('close', (code) => (code === 0 ? resolve() : reject(new BacklotError('BENCH_FAILED', `curl exited ${code}`))));
      });
      curlSeconds.push((performance.now() - t) / 1000);
      if (fs.statSync(curlOut).size !== bytes) throw new BacklotError('BENCH_FAILED', 'curl received a short file');
      fs.rmSync(curlOut, { force: true });
    }
    const mbps = (s: number[]) => bytes / 1024 ** 2 / median(s);
    return { bytes, rounds, engineMBps: round(mbps(engineSeconds)), curlMBps: round(mbps(curlSeconds)), ratio: round(mbps(engineSeconds) / mbps(curlSeconds), 3), engineSeconds: engineSeconds.map((s) => round(s, 2)), curlSeconds: curlSeconds.map((s) => round(s, 2)) };
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface FeedSyncResult { entries: number; feedBytes: number; engineMs: number; applyMs: number; totalMs: number; resyncApplyMs: number }

/** A 5,000-entry feed: fetch and parse in the feed engine's process, then applied to a fresh library in one transaction. */
export async function benchFeedSync(entries = 5000): Promise<FeedSyncResult> {
  const items = Array.from({ length: entries }, (_, i) => `<item><title>Episode ${i}</title><guid>ep-${i}</guid><pubDate>${new Date(Date.UTC(2020, 0, 1) + i * 3600_000).toUTCString()}</pubDate><itunes:duration>${i % 90}:${String(i % 60).padStart(2, '0')}</itunes:duration><enclosure url="http://127.0.0.1/m/${i}.mp3" type="audio/mpeg" length="${1000 + i}"/><description>Notes for episode ${i} with some words in them.</description></item>`);
  const xml = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Big</title>${items.join('')}</channel></rss>`);
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/rss+xml', 'content-length': xml.length }).end(xml));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`;
  const dir = scratch('feed');
  const host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite') });
  try {
    const channel = host.transaction(() => host.library.addChannel({ id: 'big', kind: 'feed', platform: 'podcast', title: 'Big', source: url }, host.now()));
    const sync = async () => {
      const outputDir = path.join(dir, `job-${performance.now()}`);
      fs.mkdirSync(outputDir, { recursive: true });
      const t0 = performance.now();
      const outcome = await runEngine(nodeProgram(engineProgram('feed')), { jobId: 'feed', operation: 'sync', outputDir, input: { url } });
      if (!outcome.ok) throw new BacklotError('BENCH_FAILED', `the feed engine failed: ${outcome.code}`);
      const t1 = performance.now();
      const listing = await readListing(outcome.outputs[0].path);
      host.transaction(() => applyListing(host, channel, listing, host.now()));
      return { engineMs: t1 - t0, applyMs: performance.now() - t1 };
    };
    const first = await sync();
    if (host.library.itemsOfChannel('big').length !== entries) throw new BacklotError('BENCH_FAILED', 'the listing did not arrive whole');
    const again = await sync();
    return { entries, feedBytes: xml.length, engineMs: round(first.engineMs), applyMs: round(first.applyMs), totalMs: round(first.engineMs + first.applyMs), resyncApplyMs: round(again.applyMs) };
  } finally {
    host.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
