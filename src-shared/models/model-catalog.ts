// The models Backlot can install by name (docs/models.md "The catalog"): data, not code, so a test
// checks every entry's shape and uniqueness and `backlot models available` / `add NAME` read one list.
// Checksums are the ones the source publishes, in the algorithm it gives (whisper.cpp's
// models/README.md lists SHA-1); a model whose checksum its source does not publish is left out.
import { z } from 'zod';

export type ChecksumAlgorithm = 'sha1' | 'sha256';

export interface CatalogModel {
  /** What a user types: `backlot models add whisper-base.en`. */
  name: string;
  /** The model manager's id it installs as (the one engines' settings name, e.g. transcribe.whisperModel). */
  id: string;
  /** The engine family that reads it. */
  engine: 'whisper.cpp';
  /** ISO 639-1 codes, or ['multilingual'] for the 99-language whisper models. */
  languages: readonly string[];
  /** The size the source states (whisper.cpp rounds to MiB / GiB), in bytes; the checksum is what is verified. */
  approxBytes: number;
  checksum: { algorithm: ChecksumAlgorithm; hex: string };
  /** Path under the models.baseUrl setting (default DEFAULT_MODELS_BASE_URL). */
  path: string;
  /** Where the checksum comes from, for a reader who wants to check it. */
  checksumSource: string;
  goodFor: string;
}

/** The upstream host of every entry's path; a mirror replaces it (setting models.baseUrl). */
export const DEFAULT_MODELS_BASE_URL = 'https://huggingface.co';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const WHISPER_README = 'https://github.com/ggml-org/whisper.cpp/blob/master/models/README.md';

function whisper(size: string, approxBytes: number, sha1: string, goodFor: string, repo = 'ggerganov/whisper.cpp'): CatalogModel {
  return {
    name: `whisper-${size}`, id: `ggml-${size}`, engine: 'whisper.cpp',
    languages: size.includes('.en') ? ['en'] : ['multilingual'],
    approxBytes, checksum: { algorithm: 'sha1', hex: sha1 },
    path: `${repo}/resolve/main/ggml-${size}.bin`, checksumSource: WHISPER_README, goodFor,
  };
}

/** whisper.cpp's "Available models" table, as published (sizes rounded by upstream). */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  whisper('tiny', 75 * MIB, 'bd577a113a864445d4c299885e0cb97d4ba92b5f', 'The fastest; rough drafts on any CPU, many languages.'),
  whisper('tiny.en', 75 * MIB, 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df', 'The fastest English model; rough drafts on any CPU.'),
  whisper('base', 142 * MIB, '465707469ff3a37a2b9b8d8f89f2f99de7299dac', 'A fair draft in many languages on two CPU cores.'),
  whisper('base.en', 142 * MIB, '137c40403d78fd54d454da0f9bd998f78703390c', 'The default: a fair English transcript on two CPU cores.'),
  whisper('small', 466 * MIB, '55356645c2b361a969dfd0ef2c5a50d530afd8d5', 'Good accuracy in many languages; slow on a CPU, quick on a GPU.'),
  whisper('small.en', 466 * MIB, 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022', 'Good English accuracy; slow on a CPU, quick on a GPU.'),
  whisper('small.en-tdrz', 465 * MIB, 'b6c6e7e89af1a35c08e6de56b66ca6a02a2fdfa1', 'English with speaker turns marked (tinydiarize).', 'akashmjn/tinydiarize-whisper.cpp'),
  whisper('medium', 1.5 * GIB, 'fd9727b6e1217c2f614f9b698455c4ffd82463b4', 'High accuracy in many languages; wants a GPU.'),
  whisper('medium.en', 1.5 * GIB, '8c30f0e44ce9560643ebd10bbe50cd20eafd3723', 'High English accuracy; wants a GPU.'),
  whisper('large-v1', 2.9 * GIB, 'b1caaf735c4cc1429223d5a74f0f4d0b9b59a299', 'The first large model; kept for comparisons.'),
  whisper('large-v2', 2.9 * GIB, '0f4c8e34f21cf1a914c59d8b3ce882345ad349d6', 'Large, many languages; wants a GPU with 4 GB or more.'),
  whisper('large-v2-q5_0', 1.1 * GIB, '00e39f2196344e901b3a2bd5814807a769bd1630', 'large-v2 quantized (5-bit): less memory, nearly the same accuracy.'),
  whisper('large-v3', 2.9 * GIB, 'ad82bf6a9043ceed055076d0fd39f5f186ff8062', 'The most accurate, many languages; wants a GPU with 4 GB or more.'),
  whisper('large-v3-q5_0', 1.1 * GIB, 'e6e2ed78495d403bef4b7cff42ef4aaadcfea8de', 'large-v3 quantized (5-bit): less memory, nearly the same accuracy.'),
  whisper('large-v3-turbo', 1.5 * GIB, '4af2b29d7ec73d781377bfd1758ca957a807e941', 'Near large-v3 accuracy at several times its speed; a GPU is best.'),
  whisper('large-v3-turbo-q5_0', 547 * MIB, 'e050f7970618a659205450ad97eb95a18d69c9ee', 'large-v3-turbo quantized (5-bit): the best accuracy per byte.'),
].map((m) => ({ ...m, approxBytes: Math.round(m.approxBytes) }));

export function catalogModel(name: string, catalog: readonly CatalogModel[] = MODEL_CATALOG): CatalogModel | null {
  return catalog.find((m) => m.name === name) ?? null;
}

/** Catalog names close to a mistyped one: a shared stem first, then by edit distance, at most three. */
export function closeNames(name: string, catalog: readonly CatalogModel[] = MODEL_CATALOG): string[] {
  const wanted = name.toLowerCase().replace(/^(whisper-|ggml-)/, '');
  const scored = catalog.map((m) => {
    const stem = m.name.replace(/^whisper-/, '');
    const d = editDistance(wanted, stem);
    return { name: m.name, score: stem.startsWith(wanted) || wanted.startsWith(stem) ? Math.min(d, 1) : d };
  });
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return scored.filter((s) => s.score <= limit).sort((a, b) => a.score - b.score || a.name.localeCompare(b.name)).slice(0, 3).map((s) => s.name);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length];
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const HEX_LENGTH: Record<ChecksumAlgorithm, number> = { sha1: 40, sha256: 64 };

/** One entry's shape: what the catalog test checks of every entry and what the test seam accepts. */
export const catalogModelSchema = z.object({
  name: z.string().regex(NAME),
  id: z.string().regex(NAME),
  engine: z.literal('whisper.cpp'),
  languages: z.array(z.string().regex(/^([a-z]{2,3}|multilingual)$/)).min(1),
  approxBytes: z.number().int().positive(),
  checksum: z.object({ algorithm: z.enum(['sha1', 'sha256']), hex: z.string() }).strict()
    .refine((c) => new RegExp(`^[0-9a-f]{${HEX_LENGTH[c.algorithm]}}$`).test(c.hex), { error: 'checksum.hex must be lower-case hex of the algorithm\'s length' }),
  // Relative, no "..": a mirror's base URL plus this path stays on the mirror.
  path: z.string().min(1).refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !/^[a-z]+:/i.test(p), { error: 'path must be relative to the base URL' }),
  checksumSource: z.string().min(1),
  goodFor: z.string().min(1),
}).strict();
