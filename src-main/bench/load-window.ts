// One window of the load benchmark, as the real one behaves over the headless shell: it follows
// the /events WebSocket and re-reads what the window's stores re-read (the shared library view for
// the channels, lanes.list on lanes and runs changes, the 20 recent runs on runs changes), one
// read at a time per view; every call is timed.
import WebSocket from 'ws';
import type { ApiMethod, ApiRequest, ApiResponse, HostEvent, HostEventDetail } from '../../src-shared/api/contract';
import { createLibraryView } from '../../src-shared/views/library-view';
import { coalesced } from '../../src-shared/views/coalesce';

export interface CallTiming {
  method: ApiMethod;
  ms: number;
  ok: boolean;
}

export class LoadWindow {
  readonly timings: CallTiming[] = [];
  events = 0;
  private socket: WebSocket | null = null;
  private readonly library;
  private readonly lanes;
  private readonly runs;
  private errors = 0;

  constructor(private readonly base: string, private readonly token: string) {
    this.library = createLibraryView({
      call: (m, p) => this.call(m, p),
      onChannels: () => undefined,
      onError: () => { this.errors++; },
    });
    this.lanes = coalesced(async () => { await this.call('lanes.list', {}).catch(() => { this.errors++; }); });
    this.runs = coalesced(async () => { await this.call('runs.list', { limit: 20 }).catch(() => { this.errors++; }); });
  }

  get failures(): number {
    return this.errors + this.timings.filter((t) => !t.ok).length;
  }

  /** Connects its event socket and reads everything, as a window does when it opens. */
  async open(): Promise<void> {
    const url = `${this.base.replace(/^http/, 'ws')}events?token=${encodeURIComponent(this.token)}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.on('error', () => { this.errors++; });
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: HostEvent } & HostEventDetail;
      this.events++;
      this.onEvent(message.event, message.channels ? { channels: message.channels } : undefined);
    });
    await Promise.all([this.library.refresh(), this.lanes(), this.runs()]);
  }

  private onEvent(event: HostEvent, detail: HostEventDetail | undefined): void {
    void this.library.onEvent(event, detail);
    if (event === 'lanes-changed' || event === 'runs-changed') void this.lanes();
    if (event === 'runs-changed') void this.runs();
  }

  /** One of the window's own reads, timed into `timings`. */
  async call<M extends ApiMethod>(method: M, payload: ApiRequest<M>): Promise<ApiResponse<M>> {
    const t = performance.now();
    let ok = false;
    try {
      const body = await this.send(method, payload);
      ok = true;
      return body;
    } finally {
      this.timings.push({ method, ms: performance.now() - t, ok });
    }
  }

  /**
   * Follows the host for `durationMs` from now (counting only what happens from now): after
   * `offsetMs`, sends the cheap probe every `everyMs` at most, at least once however late its start
   * on a slow machine; returns each probe's milliseconds.
   */
  async follow(durationMs: number, offsetMs: number, everyMs: number): Promise<number[]> {
    this.timings.length = 0;
    this.events = 0;
    const until = performance.now() + durationMs;
    const probes: number[] = [];
    await sleep(offsetMs);
    do {
      const ms = await this.probe('lanes.list', {});
      probes.push(ms);
      await sleep(Math.max(0, everyMs - ms));
    } while (performance.now() < until);
    return probes;
  }

  /** A request timed apart from the window's reads (the benchmark's probe); returns its milliseconds. */
  async probe<M extends ApiMethod>(method: M, payload: ApiRequest<M>): Promise<number> {
    const t = performance.now();
    try {
      await this.send(method, payload);
    } catch {
      this.errors++;
    }
    return performance.now() - t;
  }

  private async send<M extends ApiMethod>(method: M, payload: ApiRequest<M>): Promise<ApiResponse<M>> {
    const res = await fetch(`${this.base}api/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const body = await res.json() as ApiResponse<M>;
    if (!res.ok) throw new Error(`${method} answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  }

  close(): void {
    this.socket?.terminate();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
