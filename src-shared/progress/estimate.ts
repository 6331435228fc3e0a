// Progress a person can trust (docs/transcription.md "Progress", docs/window.md "Progress and ETA"):
// a ratio that keeps moving while a long chunk decodes, and an ETA from the measured, smoothed pace
// that is hidden until it is stable and never grows while the work visibly advances.

/** Within a chunk, never claim more than this share of it: the chunk's own end is reported when it is done. */
export const IN_CHUNK_CAP = 0.95;
/** Real-time factor assumed before any chunk has been timed (pocketsphinx runs near real time on one core). */
export const DEFAULT_RTF = 1;

/**
 * The ratio to report while a chunk spanning [startRatio, endRatio] decodes: elapsed time over the
 * expected time (chunk length × real-time factor measured on earlier chunks), linear up to 80 % of
 * the chunk, then creeping towards IN_CHUNK_CAP so a slower chunk still moves and never overshoots.
 */
export function inChunkRatio(p: { startRatio: number; endRatio: number; elapsedS: number; chunkS: number; rtf: number | null }): number {
  const expectedS = Math.max(0.001, p.chunkS * (p.rtf && p.rtf > 0 ? p.rtf : DEFAULT_RTF));
  const x = Math.max(0, p.elapsedS) / expectedS;
  const knee = 0.8;
  const fraction = x <= knee ? x : knee + (IN_CHUNK_CAP - knee) * (1 - Math.exp(-(x - knee) / (IN_CHUNK_CAP - knee)));
  return p.startRatio + (p.endRatio - p.startRatio) * Math.min(IN_CHUNK_CAP, fraction);
}

/** Measured real-time factor of the chunks timed so far (decode seconds per audio second); null before any. */
export class RtfMeter {
  private decodeS = 0;
  private audioS = 0;
  add(audioS: number, decodeS: number): void {
    if (audioS <= 0 || decodeS < 0) return;
    this.audioS += audioS;
    this.decodeS += decodeS;
  }
  get rtf(): number | null {
    return this.audioS > 0 ? this.decodeS / this.audioS : null;
  }
}

export interface EtaOptions {
  /** Hidden until this share of the work is done… */
  minRatio: number;
  /** …and this many seconds have passed since the first sample. */
  minElapsedS: number;
  /** Weight of the newest rate in the exponentially weighted average (0..1]. */
  alpha: number;
  /** A rise in ratio below this is noise: it neither feeds the rate nor moves the ETA. */
  noise: number;
  /** No rise beyond noise for this long is a stall: the ETA may then grow to the pace measured after it. */
  stallS: number;
}

export const DEFAULT_ETA_OPTIONS: EtaOptions = { minRatio: 0.03, minElapsedS: 10, alpha: 0.3, noise: 0.002, stallS: 30 };

/**
 * Seconds left from (time, ratio) samples: the rate is an exponentially weighted average of the pace
 * between rises; the ETA is null until enough progress and time have passed; while the ratio keeps
 * rising it never grows (only after a stall may it be raised to the slower pace measured since).
 */
export class EtaEstimator {
  private readonly opts: EtaOptions;
  private first: { t: number; ratio: number } | null = null;
  private last: { t: number; ratio: number } | null = null;
  private rate: number | null = null;
  private eta: number | null = null;
  private mayGrow = false;

  constructor(opts: Partial<EtaOptions> = {}) {
    this.opts = { ...DEFAULT_ETA_OPTIONS, ...opts };
  }

  /** Adds a sample (t in seconds, ratio 0..1) and returns the ETA in seconds, or null while hidden. */
  push(t: number, ratio: number): number | null {
    const r = Math.min(1, Math.max(0, ratio));
    if (r >= 1) return (this.eta = 0);
    if (!this.first || !this.last) {
      this.first = this.last = { t, ratio: r };
      return null;
    }
    const dt = t - this.last.t;
    const dr = r - this.last.ratio;
    if (dr < 0 || dt < 0) {
      // The work went back (a restart): measure afresh.
      this.first = this.last = { t, ratio: r };
      this.rate = this.eta = null;
      return null;
    }
    if (dr <= this.opts.noise) {
      // A rise within noise waits for the next sample, so small steps still add up to a measured pace.
      if (dt >= this.opts.stallS) this.mayGrow = true;
      return this.eta;
    }
    const sample = dr / Math.max(1e-9, dt);
    this.rate = this.rate === null ? sample : this.opts.alpha * sample + (1 - this.opts.alpha) * this.rate;
    this.last = { t, ratio: r };
    if (r < this.opts.minRatio || t - this.first.t < this.opts.minElapsedS) return null;
    const raw = (1 - r) / this.rate;
    this.eta = this.eta === null || this.mayGrow ? raw : Math.min(raw, this.eta);
    this.mayGrow = false;
    return this.eta;
  }
}
