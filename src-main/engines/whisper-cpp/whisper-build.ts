// Which build of whisper.cpp runs (docs/transcription.md "whisper.cpp"): @fugood/whisper.node ships
// CPU, CUDA and Vulkan builds as platform packages. GPU detection (src-main/gates/gpu.ts) decides: the
// gpu lane takes CUDA on NVIDIA and Vulkan elsewhere; the cpu lane takes the CPU build.
import { createRequire } from 'node:module';
import type { GpuReport } from '../../gates/gpu';

export type WhisperBuild = 'default' | 'cuda' | 'vulkan';

const require = createRequire(import.meta.url);

export function whisperPackage(build: WhisperBuild, platform: string = process.platform, arch: string = process.arch): string {
  return `@fugood/node-whisper-${platform}-${arch}${build === 'default' ? '' : `-${build}`}`;
}

/** The build a lane wants on this machine's GPUs. */
export function wantedBuild(lane: 'gpu' | 'cpu', gpu: GpuReport): WhisperBuild {
  if (lane === 'cpu') return 'default';
  return gpu.usable.some((c) => c.vendor.toLowerCase().includes('nvidia')) ? 'cuda' : 'vulkan';
}

/** Whether the build's package is installed (loading it is the program's job: it may lack a driver). */
export function buildInstalled(build: WhisperBuild): boolean {
  try {
    require.resolve(`${whisperPackage(build)}/package.json`);
    return true;
  } catch {
    return false;
  }
}

export function bindingVersion(): string {
  try {
    return (require('@fugood/whisper.node/package.json') as { version: string }).version;
  } catch {
    return 'absent';
  }
}
