// GPU detection: systeminformation's graphics controllers decide the gpu lane's slots and
// whether GPU engines may run at all. With no usable GPU, GPU engines fail their preflight with
// that reason and the CPU engines carry the work.
import si from 'systeminformation';

export interface GpuController {
  vendor: string;
  model: string;
  vramMb: number | null;
}

export interface GpuReport {
  controllers: GpuController[];
  usable: GpuController[];
  /** Slots for the gpu lane: one per usable GPU. */
  slots: number;
  reason: string | null;
}

/** Enough memory for a whisper/sherpa model; integrated graphics with shared memory need not apply. */
export const MIN_VRAM_MB = 2048;

export function judgeGpus(controllers: readonly GpuController[]): GpuReport {
  const usable = controllers.filter((c) => {
    const vendor = c.vendor.toLowerCase();
    const apple = vendor.includes('apple');
    const discrete = vendor.includes('nvidia') || vendor.includes('amd') || vendor.includes('advanced micro devices');
    return apple || (discrete && (c.vramMb ?? 0) >= MIN_VRAM_MB);
  });
  return {
    controllers: [...controllers],
    usable,
    slots: usable.length,
    reason: usable.length > 0 ? null
      : controllers.length === 0 ? 'No graphics controller was found.'
      : `No graphics controller with at least ${MIN_VRAM_MB} MB of dedicated memory was found.`,
  };
}

export async function detectGpus(): Promise<GpuReport> {
  try {
    const g = await si.graphics();
    return judgeGpus(g.controllers.map((c) => ({ vendor: c.vendor ?? '', model: c.model ?? '', vramMb: c.vram ?? null })));
  } catch {
    return judgeGpus([]);
  }
}
