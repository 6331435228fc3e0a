// The demo library a new user is offered on an empty library (and `backlot serve --demo`): a few
// short spoken clips, synthesised at first start with espeak-ng and ffmpeg when both are present,
// else copied from the small clips bundled in resources/demo, added as a folder channel, so the
// whole pipeline can be watched working offline within a minute (docs/window.md "First run").
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LibraryHost } from './library-host';
import type { ChannelRecord } from './repository';
import { addSource } from './add-source';
import { BacklotError } from '../../src-shared/errors';

const run = promisify(execFile);

export const DEMO_FOLDER = 'demo-library';
export const DEMO_TITLE = 'Demo library';

/** What each clip says, and in which espeak-ng voices (two voices make a dialog); a folder scan titles an item by its file name. */
export const DEMO_CLIPS: readonly { file: string; title: string; lines: readonly { voice: string; text: string }[] }[] = [
  {
    file: 'Welcome to Backlot.opus', title: 'Welcome to Backlot',
    lines: [{ voice: 'en-us+m3', text: 'Welcome to Backlot. Every item in your library gets downloaded, transcribed and summarised, one lane at a time.' }],
  },
  {
    file: 'The weather report.opus', title: 'The weather report',
    lines: [
      { voice: 'en-us+f4', text: 'Good morning. Here is the weather for today.' },
      { voice: 'en-us+m3', text: 'Thank you. Expect clear skies in the morning and light rain after four in the afternoon.' },
    ],
  },
  {
    file: 'Cooking notes - bread.opus', title: 'Cooking notes: bread',
    lines: [{ voice: 'en-gb+m1', text: 'Mix flour, water, salt and yeast. Knead for ten minutes, rest for an hour, then bake until golden.' }],
  },
];

export interface DemoResult {
  channel: ChannelRecord;
  clips: number;
  /** True when the clips were spoken here; false when the bundled ones were copied. */
  synthesised: boolean;
}

export interface DemoOptions {
  dataDir: string;
  /** Where the bundled clips are (resources/demo). */
  bundledDir: string;
  /** For tests: pretend espeak-ng or ffmpeg is missing. */
  tools?: { espeak: string | null; ffmpeg: string | null };
}

/** Creates the demo folder (once) and adds it as a channel; refused when it is already in the library. */
export async function addDemoLibrary(host: LibraryHost, options: DemoOptions): Promise<DemoResult> {
  const folder = path.join(options.dataDir, DEMO_FOLDER);
  if (host.library.channelBySource(folder)) {
    throw new BacklotError('CHANNEL_EXISTS', 'The demo library is already in the library.', { source: folder });
  }
  const synthesised = await fillDemoFolder(folder, options);
  const { channel } = await addSource(host, folder, { title: DEMO_TITLE });
  return { channel, clips: DEMO_CLIPS.length, synthesised };
}

async function fillDemoFolder(folder: string, options: DemoOptions): Promise<boolean> {
  fs.mkdirSync(folder, { recursive: true });
  const missing = DEMO_CLIPS.filter((c) => !fs.existsSync(path.join(folder, c.file)));
  if (missing.length === 0) return false;
  const tools = options.tools ?? { espeak: onPath('espeak-ng'), ffmpeg: onPath('ffmpeg') };
  if (tools.espeak && tools.ffmpeg) {
    try {
      for (const clip of missing) await synthesise(clip, path.join(folder, clip.file), tools.espeak, tools.ffmpeg);
      return true;
    } catch {
      // A broken voice or codec is no reason to leave a new user without a demo: the bundled clips follow.
    }
  }
  for (const clip of DEMO_CLIPS.filter((c) => !fs.existsSync(path.join(folder, c.file)))) {
    const bundled = path.join(options.bundledDir, clip.file);
    if (!fs.existsSync(bundled)) throw new BacklotError('DEMO_UNAVAILABLE', `The demo clips cannot be made (no espeak-ng and ffmpeg) and the bundled ${bundled} is missing.`, { file: bundled });
    fs.copyFileSync(bundled, path.join(folder, clip.file));
  }
  return false;
}

/** Each line spoken to WAV by espeak-ng, then joined and encoded to Opus by ffmpeg; written by rename. */
export async function synthesise(clip: (typeof DEMO_CLIPS)[number], target: string, espeak: string, ffmpeg: string): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-demo-'));
  try {
    const parts: string[] = [];
    for (const [i, line] of clip.lines.entries()) {
      const wav = path.join(tmp, `part${i}.wav`);
      await run(espeak, ['-v', line.voice, '-s', '150', '-w', wav, '--', line.text]);
      parts.push(wav);
    }
    const list = path.join(tmp, 'parts.txt');
    fs.writeFileSync(list, parts.map((p) => `file '${p.replaceAll("'", "'\\''")}'`).join('\n'));
    const out = path.join(tmp, 'out.opus');
    await run(ffmpeg, ['-nostdin', '-hide_banner', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', `file:${list}`,
      '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-metadata', `title=${clip.title}`, `file:${out}`]);
    fs.renameSync(out, target);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
