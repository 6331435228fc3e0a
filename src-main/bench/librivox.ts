// The LibriVox recordings of Debian's pocketsphinx-testdata with their reference transcription: the
// transcription figures' test set (docs/benchmarks.md) and the engines' real-media tests.
import fs from 'node:fs';
import path from 'node:path';

export const LIBRIVOX_DIR = process.env.BACKLOT_LIBRIVOX_DIR ?? '/usr/share/pocketsphinx/test/data/librivox';

export interface LibrivoxRecording { id: string; file: string; reference: string }

/** The recordings and their references; empty when the package is not installed. */
export function librivoxRecordings(dir = LIBRIVOX_DIR): LibrivoxRecording[] {
  let text: string;
  try { text = fs.readFileSync(path.join(dir, 'transcription'), 'utf8'); } catch { return []; }
  const out: LibrivoxRecording[] = [];
  for (const line of text.split('\n')) {
    const m = /^(.*)\(([^()]+)\)\s*$/.exec(line.trim());
    if (!m) continue;
    const reference = m[1].replace(/<\/?s>/g, ' ').replace(/\s+/g, ' ').trim();
    const file = path.join(dir, `${m[2]}.wav`);
    if (fs.existsSync(file)) out.push({ id: m[2], file, reference });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}
