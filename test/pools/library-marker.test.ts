// The library marker and the worker's path mapping (docs/pools.md "Shared storage", "--map"): a
// marker is read back only when it is one; a mapping replaces only the leading folder, segment-wise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MARKER_NAME, libraryId, mapHostPath, mappedFolderProblem, markMappedFolders, readLibraryMarker, writeLibraryMarker } from '../../src-main/pools/library-marker';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-marker-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the library marker', () => {
  it('is made once per library, marks mapped folders without overwriting another library\'s, and says what is wrong', () => {
    const lib = fs.mkdtempSync(path.join(root, 'lib-'));
    const id = libraryId(lib);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(libraryId(lib)).toBe(id);
    const mine = fs.mkdtempSync(path.join(root, 'mine-'));
    const theirs = fs.mkdtempSync(path.join(root, 'theirs-'));
    writeLibraryMarker(theirs, 'a'.repeat(32));
    expect(markMappedFolders(id, [mine, theirs, path.join(root, 'nowhere')])).toEqual([
      { folder: mine, marked: true, other: false },
      { folder: theirs, marked: false, other: true },
      { folder: path.join(root, 'nowhere'), marked: false, other: false },
    ]);
    expect(readLibraryMarker(mine)).toBe(id);
    expect(readLibraryMarker(theirs)).toBe('a'.repeat(32));
    fs.writeFileSync(path.join(fs.mkdtempSync(path.join(root, 'junk-')), MARKER_NAME), 'not json');
    expect(mappedFolderProblem(id, '/srv/media', mine)).toBeNull();
    expect(mappedFolderProblem(id, '/srv/media', theirs)).toMatchObject({ code: 'MAP_NOT_THIS_LIBRARY', message: expect.stringContaining('another library\'s') });
    expect(mappedFolderProblem(id, '/srv/media', lib + '-missing')).toMatchObject({ code: 'MAP_NOT_THIS_LIBRARY', message: expect.stringContaining('holds no .backlot-library marker') });
    expect(mappedFolderProblem(undefined, '/srv/media', mine)).toMatchObject({ code: 'MAP_NOT_THIS_LIBRARY', message: expect.stringContaining('pool token NAME --rotate') });
  });
});

describe('a host path through the worker\'s mappings', () => {
  const maps = [{ host: '/srv/media', worker: '/mnt/media' }, { host: '/srv/media/podcasts', worker: '/mnt/pods' }];
  it('replaces the leading folder only, the longest first, segment-wise', () => {
    expect(mapHostPath(maps, '/srv/media/a.opus')).toBe('/mnt/media/a.opus');
    expect(mapHostPath(maps, '/srv/media/podcasts/ep 1.opus')).toBe('/mnt/pods/ep 1.opus');
    // A repeated segment and a non-ASCII name stay as they are.
    expect(mapHostPath(maps, '/srv/media/srv/media/Árvíztűrő tükörfúrógép.opus')).toBe('/mnt/media/srv/media/Árvíztűrő tükörfúrógép.opus');
    expect(mapHostPath(maps, '/srv/media2/a.opus')).toBeNull();
    expect(mapHostPath(maps, '/srv/media/../etc/passwd')).toBeNull();
    expect(mapHostPath(maps, 'srv/media/a.opus')).toBeNull();
  });
});
