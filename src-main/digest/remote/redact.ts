// The API key kept out of everything Backlot stores (issue 23, docs/security.md "The API key"): a
// hostile or careless server can echo the key raw, base64 or base64url (at any byte alignment, as
// inside an encoded header), JSON-escaped, URL-encoded, or in part; each form, and every run of it
// at least PART_CHARS long, becomes "[redacted]". Upstream bodies are stored only as a bounded,
// redacted excerpt with control characters made visible.

/** Shorter runs of a key are too weak to mark as a leak and too common to strip without damage. */
const PART_CHARS = 10;
/** Most characters of an upstream body a diagnostic keeps. */
export const EXCERPT_CHARS = 1000;

/** The key's base64 text at each byte alignment, trimmed to the characters only the key's bytes decide. */
function base64Forms(key: Buffer): string[] {
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), key]).toString('base64');
    const from = [0, 2, 3][shift];
    const to = Math.floor(((shift + key.length) * 8) / 6);
    const core = encoded.slice(from, to);
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** Every text form the key can take in an echo. */
function keyForms(key: string): string[] {
  const json = JSON.stringify(key).slice(1, -1);
  const uri = encodeURIComponent(key);
  const forms = [key, json, json.replace(/\//g, '\\/'), uri, uri.toLowerCase(), ...base64Forms(Buffer.from(key, 'utf8'))];
  return [...new Set(forms.filter((f) => f.length >= Math.min(PART_CHARS, key.length)))];
}

export function redact(text: string, key: string | null): string {
  if (!key || text === '') return text;
  const hidden = new Uint8Array(text.length);
  let any = false;
  for (const form of keyForms(key)) {
    // A key shorter than a part is matched whole; a longer one by every run of PART_CHARS of it.
    const width = Math.min(PART_CHARS, form.length);
    for (let i = 0; i + width <= form.length; i++) {
      const needle = form.slice(i, i + width);
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
        hidden.fill(1, at, at + width);
        any = true;
      }
    }
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length;) {
    if (!hidden[i]) { out += text[i++]; continue; }
    while (i < text.length && hidden[i]) i++;
    out += '[redacted]';
  }
  return out;
}

/** Every string inside a value (params, a digest record) redacted; the structure is kept as it is. */
export function redactDeep<T>(value: T, key: string | null): T {
  if (!key) return value;
  if (typeof value === 'string') return redact(value, key) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, key)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k, key), redactDeep(v, key)])) as T;
  }
  return value;
}

/**
 * What a diagnostic keeps of an upstream body: never the body verbatim, but its first
 * EXCERPT_CHARS characters, the key redacted, control characters shown as escapes, and a note
 * when it was cut.
 */
export function upstreamExcerpt(raw: string, key: string | null): string {
  const head = raw.length > EXCERPT_CHARS ? raw.slice(0, EXCERPT_CHARS) : raw;
  // eslint-disable-next-line no-control-regex
  const visible = redact(head, key).replace(/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return raw.length > head.length ? `${visible}… (cut at ${EXCERPT_CHARS} characters)` : visible;
}
