// The Word export is a real Office Open XML package: unzipped with jszip, its word/document.xml holds
// the title, then one paragraph per segment with its time, the speaker's current name in bold and the
// text, escaped; a rename is a new names map and shows in the next export.
import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { lengthOf, renderDocx } from '../../src-main/transcripts/docx';
import { dialogRecord } from './fixtures/records';

const unescapeXml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** The document's paragraphs as text, each with its runs (text and whether bold). */
async function paragraphsOf(buffer: Buffer): Promise<{ text: string; runs: { text: string; bold: boolean }[] }[]> {
  const zip = await JSZip.loadAsync(buffer);
  expect(Object.keys(zip.files)).toEqual(expect.arrayContaining(['[Content_Types].xml', 'word/document.xml', '_rels/.rels']));
  const xml = await zip.file('word/document.xml')!.async('string');
  return [...xml.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map(([p]) => {
    const runs = [...p.matchAll(/<w:r>([\s\S]*?)<\/w:r>/g)].map(([, r]) => ({
      text: unescapeXml([...r.matchAll(/<w:t[^>]*>([\s\S]*?)<\/w:t>/g)].map((m) => m[1]).join('')),
      bold: /<w:b\/>|<w:b w:val="(true|1)"\/>/.test(r),
    }));
    return { text: runs.map((r) => r.text).join(''), runs };
  });
}

describe('DOCX export', () => {
  it('says the length as a person would: a 21 s file is "21 s", not "0 min"', () => {
    expect([lengthOf(21), lengthOf(59.6), lengthOf(125), lengthOf(120), lengthOf(3780), lengthOf(7200)]).toEqual(['21 s', '1 min', '2 min 5 s', '2 min', '1 h 3 min', '2 h']);
  });

  it('holds the title, a source line and every segment with its time and bold speaker name', async () => {
    const record = dialogRecord();
    const paragraphs = await paragraphsOf(await renderDocx(record, { 'prof-ann': 'Ann Lee', 'prof-bob': 'Bob' }, { title: 'Episode 12 & friends' }));
    expect(paragraphs[0].text).toBe('Episode 12 & friends');
    expect(paragraphs[1].text).toBe(`pocketsphinx (en-us), language en, ${record.durationS} s`);
    expect(record.durationS).toBeLessThan(60);
    const body = paragraphs.slice(2);
    expect(body.map((p) => p.text)).toEqual([
      '[00:00:00] Ann Lee: Welcome back to the show, everyone.',
      `[00:00:03] Bob: ${record.segments[1].text}`,
      '[00:00:20] Ann Lee: Fish & chips <cheap> tonight?',
      '[00:00:23] Speaker 3: Absolutely, count me in.',
    ]);
    expect(body[0].runs.find((r) => r.text === 'Ann Lee: ')?.bold).toBe(true);
    expect(body[0].runs.find((r) => r.text.startsWith('Welcome'))?.bold).toBe(false);
  });

  it('shows a rename in the next export, and drops characters XML cannot carry', async () => {
    const record = dialogRecord();
    record.segments[0].text = 'Welcome\u0001 back.';
    const paragraphs = await paragraphsOf(await renderDocx(record, { 'prof-ann': 'Annabel' }, { title: 'T' }));
    expect(paragraphs[2].text).toBe('[00:00:00] Annabel: Welcome back.');
    expect(paragraphs.map((p) => p.text).join('\n')).not.toContain('Ann Lee');
  });
});
