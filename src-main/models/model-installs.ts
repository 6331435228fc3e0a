// The installs a window starts (docs/window.md "Models"): each runs in the host through the model
// manager's install by name, its progress kept here so any window that opens later reads where it
// stands, and its refusal kept as one sentence until the next try. One install per model at a time.
import { BacklotError, isBacklotError } from '../../src-shared/errors';
import type { ModelInstallStateDto } from '../../src-shared/api/models-contract';
import type { CatalogModel } from '../../src-shared/models/model-catalog';
import { EtaEstimator } from '../../src-shared/progress/estimate';
import { addModelByName, requireCatalogModel } from './model-by-name';
import { redactUrl } from '../library/net/url-policy';

/** Socket errors that mean the host was never reached, not that a download broke off. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ETIMEDOUT']);
/** At most this often a running install says it moved (the dispatcher's pace for units, docs/window.md). */
const REPORT_EVERY_MS = 250;

export interface ModelInstallsOptions {
  modelsDir: () => string;
  baseUrl: () => string;
  catalog: () => readonly CatalogModel[];
  /** Called when an install starts, moves, ends or fails. */
  changed: () => void;
}

export class ModelInstalls {
  private readonly states = new Map<string, ModelInstallStateDto>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly options: ModelInstallsOptions) {}

  stateOf(name: string): ModelInstallStateDto | null {
    return this.states.get(name) ?? null;
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /** Starts installing `name` (MODEL_UNKNOWN at once for a name not in the catalog); a second call joins the first. */
  start(name: string): Promise<void> {
    const entry = requireCatalogModel(name, this.options.catalog());
    const already = this.running.get(entry.name);
    if (already) return already;
    const baseUrl = this.options.baseUrl();
    this.states.set(entry.name, { state: 'installing', ratio: null, etaS: null, receivedBytes: 0, totalBytes: null });
    const eta = new EtaEstimator();
    let lastReport = 0;
    const job = addModelByName({
      modelsDir: this.options.modelsDir(), name: entry.name, baseUrl, catalog: this.options.catalog(),
      onProgress: (p) => {
        const ratio = p.totalBytes ? Math.min(1, p.receivedBytes / p.totalBytes) : null;
        const now = Date.now();
        const etaS = ratio === null ? null : eta.push(now / 1000, ratio);
        this.states.set(entry.name, { state: 'installing', ratio, etaS, receivedBytes: p.receivedBytes, totalBytes: p.totalBytes });
        if (now - lastReport >= REPORT_EVERY_MS) {
          lastReport = now;
          this.options.changed();
        }
      },
    }).then(() => {
      this.states.delete(entry.name);
    }, (e: unknown) => {
      const error = refusalOf(e, baseUrl);
      this.states.set(entry.name, { state: 'failed', error: { code: error.code, message: error.message } });
    }).finally(() => {
      this.running.delete(entry.name);
      this.options.changed();
    });
    this.running.set(entry.name, job);
    this.options.changed();
    return job;
  }

  /** Forgets a failed install's sentence (a remove or a new try starts clean). */
  clear(name: string): void {
    if (!this.running.has(name)) this.states.delete(name);
  }
}

/** One code and one sentence for whatever stopped an install; a host never reached is said as such. */
function refusalOf(e: unknown, baseUrl: string): BacklotError {
  if (!isBacklotError(e)) return new BacklotError('MODEL_INSTALL_FAILED', `The model could not be installed: ${(e as Error)?.message ?? String(e)}.`);
  const errno = e.params.errno;
  if (e.code === 'MODEL_DOWNLOAD_INTERRUPTED' && e.params.receivedBytes === 0 && typeof errno === 'string' && UNREACHABLE.has(errno)) {
    return new BacklotError('MODEL_MIRROR_UNREACHABLE',
      `The model host ${redactUrl(baseUrl)} could not be reached (${errno}); check the setting models.baseUrl and the network, then install again.`,
      { baseUrl: redactUrl(baseUrl), errno });
  }
  return e;
}
