// Shared by the library tests: temporary folders, real media made with ffmpeg (argument arrays,
// never a shell, so odd names stay names) and a host on a real SQLite file.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../../src-main/host/host';
import type { OperationId } from '../../src-shared/catalog/operations';
import { expectedFingerprint } from '../../src-main/work/work-store';

export function tempDir(label = 'lib'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `backlot-${label}-`));
}

/** A real audio file: a sine tone of the given length and pitch (pitch changes the bytes). */
export function makeTone(file: string, seconds = 1, frequency = 440): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=${frequency}:duration=${seconds}`, `file:${file}`]);
  return file;
}

export function openHost(dataDir: string): Host {
  return new Host({ databaseFile: path.join(dataDir, 'backlot.sqlite') });
}

export function stateOf(host: Host, operation: OperationId, itemId: string): string | undefined {
  return host.work.row(operation, itemId)?.state;
}

export function statesOf(host: Host, itemId: string): Record<string, string> {
  const rows = host.db.prepare('SELECT operation, state FROM work WHERE item_id = ? ORDER BY operation').all(itemId) as { operation: string; state: string }[];
  return Object.fromEntries(rows.map((r) => [r.operation, r.state]));
}

/** What an engine's commit does to the work row: record an output for the item's current content. */
export function commitOutput(host: Host, operation: OperationId, itemId: string): void {
  const item = host.library.item(itemId)!;
  host.transaction(() => {
    host.db.prepare('UPDATE work SET output_fp = ? WHERE operation = ? AND item_id = ?')
      .run(expectedFingerprint(host.work.operationFingerprint(operation), item.fingerprint), operation, itemId);
    // Written past the work store (the one writer) as a test's shortcut: recompute() forgets what it remembered of the item first.
    host.work.recompute(operation, itemId, host.now());
  });
}

export function itemByName(host: Host, channelId: string, relativePath: string) {
  const item = host.library.itemByExternalId(channelId, relativePath);
  if (!item) throw new Error(`no item for ${relativePath}`);
  return item;
}
