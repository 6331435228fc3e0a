// The media door against a file swapped under a live ticket (issue 23): a watched file replaced by a
// link to a file outside the library and its watched folders, or by another file, is never served;
// a file swapped between the ticket's check and the open is refused by its device and inode; and a
// ticket dies with its channel.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { MediaTickets, openMediaFile } from '../../src-main/api/media-tickets';
import { createFixtureLibrary, type FixtureLibrary } from './library-fixture';

const CLIP = path.resolve(__dirname, '../../resources/demo/The weather report.opus');
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-outside-'));
const SECRET = path.join(outside, 'shadow');
fs.writeFileSync(SECRET, 'root:$6$secret-hash:19000:0:99999:7:::\n');
afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));

let lib: FixtureLibrary;
let host: Host;
let item: string;
let file: string;

beforeEach(() => {
  lib = createFixtureLibrary(1);
  file = path.join(lib.dataDir, 'clip.opus');
  fs.copyFileSync(CLIP, file);
  host = new Host({ databaseFile: lib.databaseFile });
  item = host.library.itemsOfChannel(host.library.channels()[0].id)[0].id;
  const stat = fs.statSync(file);
  host.transaction(() => host.library.updateFile(item, { fingerprint: 'fp', sizeBytes: stat.size, mtimeMs: stat.mtimeMs, durationS: 3, mediaPath: file }, host.now()));
});
afterEach(() => {
  host.close();
  lib.remove();
});

function readAll(tickets: MediaTickets, ticket: string): Buffer | null {
  const media = tickets.resolve(ticket);
  if (!media) return null;
  const fd = openMediaFile(media);
  if (fd === null) return null;
  try { return fs.readFileSync(fd); } finally { fs.closeSync(fd); }
}

describe('the media door under a swapped file', () => {
  it('serves the recorded file, and never a link to a file outside the library swapped in after the scan', () => {
    const tickets = new MediaTickets(host);
    const { ticket } = tickets.issue(item);
    expect(readAll(tickets, ticket)?.equals(fs.readFileSync(CLIP))).toBe(true);
    fs.rmSync(file);
    fs.symlinkSync(SECRET, file);
    for (let i = 0; i < 3; i++) expect(readAll(tickets, ticket)).toBeNull();
    expect(() => tickets.issue(item)).toThrow(/outside the library/);
  });

  it('refuses another file put in its place, and one swapped between the check and the open', () => {
    const tickets = new MediaTickets(host);
    const { ticket } = tickets.issue(item);
    const checked = tickets.resolve(ticket)!;
    // Between the check and the open: same name, another inode.
    fs.copyFileSync(CLIP, `${file}.other`);
    fs.renameSync(`${file}.other`, file);
    expect(openMediaFile(checked)).toBeNull();
    // And a file of another size under the recorded name is not the recorded one.
    fs.appendFileSync(file, Buffer.alloc(10));
    expect(tickets.resolve(ticket)).toBeNull();
  });

  it('lets a ticket die with its channel', () => {
    const tickets = new MediaTickets(host);
    const { ticket } = tickets.issue(item);
    expect(tickets.resolve(ticket)).not.toBeNull();
    host.transaction(() => host.library.setChannelRemoved(host.library.channels()[0].id, host.now(), host.now()));
    expect(tickets.resolve(ticket)).toBeNull();
    host.transaction(() => host.db.prepare('UPDATE channels SET removed_at = NULL').run());
    expect(tickets.resolve(ticket)).toBeNull();
  });
});
