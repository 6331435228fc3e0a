// One window of the load benchmark, as the real one behaves over the headless shell: it follows
// the /events WebSocket and re-reads what the window's stores re-read (the shared library view for
// the channels, lanes.list on lanes and runs changes, the 20 recent runs on runs changes), one
// read at a time per view; every call is timed.
import WebSocket from 'ws';
import type { ApiMethod, ApiRequest, ApiResponse, HostEvent, HostEventDetail } from '../../src-shared/api/contract';
import { createLibraryView } from '../../src-shared/views/library-view';
import { coalesced } from '../../src-shared/views/coalesce';
import { windowClient, type HttpClient, type WindowClient } from './window-http';
import { readServerTiming, TIMING_REQUEST_HEADER } from '../../src-shared/api/server-timing';

export interface CallTiming {
  method: ApiMethod;
  ms: number;
  ok: boolean;
}

/**
 * Where one probe's time went, by the host's `Server-Timing` and this process's clock (both wall
 * clocks of one machine): before the host's loop took it, in the host, and after the host answered
 * (the way back and this window's own loop).
 */
export interface ProbeTiming {
  ms: number;
  toHostMs: number;
  inHostMs: number;
  backMs: number;
}

export class LoadWindow {
  readonly timings: CallTiming[] = [];
  events = 0;
  private socket: WebSocket | null = null;
  private readonly library;
  private readonly lanes;
  private readonly runs;
  private errors = 0;
  /** What the first few failures said (distinct), so a failed call in the figures can be told apart: a refusal, a reset, a timeout. */
  readonly failureSays: string[] = [];
  private readonly client: HttpClient;

  constructor(private readonly base: string, private readonly token: string, client: WindowClient = 'http') {
    this.client = windowClient(client);
    this.library = createLibraryView({
      call: (m, p) => this.call(m, p),
      onChannels: () => undefined,
      onError: (e: unknown) => this.failed(e),
    });
    this.lanes = coalesced(async () => { await this.call('lanes.list', {}).catch((e: unknown) => this.failed(e)); });
    this.runs = coalesced(async () => { await this.call('runs.list', { limit: 20 }).catch((e: unknown) => this.failed(e)); });
  }

  private failed(e: unknown): void {
    this.errors++;
    const said = (e instanceof Error ? e.message : String(e)).slice(0, 160);
    if (this.failureSays.length < 3 && !this.failureSays.includes(said)) this.failureSays.push(said);
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
    socket.on('error', (e) => this.failed(e));
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
      const { body } = await this.send(method, payload);
      ok = true;
      return body;
    } finally {
      this.timings.push({ method, ms: performance.now() - t, ok });
    }
  }

  /**
   * Follows the host for `durationMs` from now (counting only what happens from now): after
   * `offsetMs`, sends the cheap probe every `everyMs` at most, at least once however late its start
   * on a slow machine; returns each probe's milliseconds and where they went.
   */
  async follow(durationMs: number, offsetMs: number, everyMs: number): Promise<ProbeTiming[]> {
    this.timings.length = 0;
    this.events = 0;
    const until = performance.now() + durationMs;
    const probes: ProbeTiming[] = [];
    await sleep(offsetMs);
    do {
      const probe = await this.probe('lanes.list', {});
      probes.push(probe);
      await sleep(Math.max(0, everyMs - probe.ms));
    } while (performance.now() < until);
    return probes;
  }

  /** A request timed apart from the window's reads (the benchmark's probe), its time split by the host's timing. */
  async probe<M extends ApiMethod>(method: M, payload: ApiRequest<M>): Promise<ProbeTiming> {
    const t = performance.now();
    let timing: ReturnType<typeof readServerTiming> = null;
    try {
      timing = readServerTiming((await this.send(method, payload, true)).serverTiming);
    } catch (e) {
      this.failed(e);
    }
    const end = performance.now();
    const ms = end - t;
    if (!timing) return { ms, toHostMs: NaN, inHostMs: NaN, backMs: NaN };
    const sentAt = performance.timeOrigin + t;
    const toHostMs = timing.arrivedAt - sentAt;
    return { ms, toHostMs, inHostMs: timing.inHostMs, backMs: ms - toHostMs - timing.inHostMs };
  }

  private async send<M extends ApiMethod>(method: M, payload: ApiRequest<M>, askTiming = false): Promise<{ body: ApiResponse<M>; serverTiming: string | null }> {
    const answer = await this.client.post(`${this.base}api/${method}`, {
      Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json', ...(askTiming ? { [TIMING_REQUEST_HEADER]: '1' } : {}),
    }, JSON.stringify(payload));
    if (answer.status !== 200) throw new Error(`${method} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return { body: JSON.parse(answer.text) as ApiResponse<M>, serverTiming: answer.serverTiming };
  }

  close(): void {
    this.socket?.terminate();
    this.client.close();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
