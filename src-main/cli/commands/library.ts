// `backlot library add|scan|list`: the library from a terminal. Thin: every rule lives in
// src-main/library, so the API and the CLI cannot disagree.
import { Host } from '../../host/host';
import { databaseFile, existingLibraryFile } from '../data-dir';
import { CliUsageError, parseCommandArgs } from '../args';
import { addSource } from '../../library/add-source';
import { describeScan, scanFolders, type ScanResult } from '../../library/folder-scan';
import type { ChannelSummary } from '../../../src-shared/api/contract';
import type { Command } from './index';

const USAGE = 'backlot library add <folder|feed URL|channel URL> [--title T] | scan [--channel ID] | list [--json]  [--data DIR]';
const FLAGS = {
  data: { type: 'string' },
  title: { type: 'string' },
  channel: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const out = (line: string) => process.stdout.write(`${line}\n`);

function warnAll(results: ScanResult[]): void {
  // Unreadable files are the user's to know about, but they are not a failure of the command.
  for (const r of results) for (const w of r.warnings) process.stderr.write(`backlot: warning: ${w.message}\n`);
}

export function channelSummaries(host: Host): ChannelSummary[] {
  const counts = host.library.itemCounts();
  return host.library.channels().map((c) => ({
    id: c.id, kind: c.kind, platform: c.platform, title: c.title, source: c.source, items: counts.get(c.id) ?? 0,
  }));
}

export const libraryCommand: Command = {
  name: 'library',
  summary: 'Add a folder, feed or channel; rescan folders; list channels',
  usage: 'library add <folder|feed URL|channel URL> | scan | list',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    const [verb, ...rest] = positionals;
    if (verb !== 'add' && verb !== 'scan' && verb !== 'list') throw new CliUsageError(`library needs add, scan or list. Usage: ${USAGE}`);
    if (verb === 'add' && rest.length !== 1) throw new CliUsageError(`library add takes exactly one source. Usage: ${USAGE}`);
    if (verb !== 'add' && rest.length > 0) throw new CliUsageError(`library ${verb} takes no arguments. Usage: ${USAGE}`);
    // Only add creates a library; scan and list on a folder without one are refused.
    const host = new Host({ databaseFile: verb === 'add' ? databaseFile(values.data) : existingLibraryFile(values.data) });
    try {
      if (verb === 'add') {
        const { channel, scan } = await addSource(host, rest[0], { title: values.title });
        if (scan) warnAll([scan]);
        if (values.json) {
          const summary = channelSummaries(host).find((c) => c.id === channel.id);
          out(JSON.stringify({ channel: summary, scan: scan ?? null }));
        } else {
          out(`Added ${channel.kind} channel "${channel.title}" as ${channel.id}.`);
          out(scan ? `Scanned: ${describeScan(scan)}` : 'It will be synced by the engines; nothing was fetched yet.');
        }
        return 0;
      }
      if (verb === 'scan') {
        const results = await scanFolders(host, { channel: values.channel });
        warnAll(results);
        if (values.json) out(JSON.stringify({ scanned: results }));
        else if (results.length === 0) out('There are no folder channels to scan.');
        else for (const r of results) out(describeScan(r));
        return 0;
      }
      const channels = channelSummaries(host);
      if (values.json) {
        out(JSON.stringify({ channels }));
      } else if (channels.length === 0) {
        out('The library is empty; add a folder, feed or channel with "backlot library add".');
      } else {
        for (const c of channels) out(`${c.id.padEnd(28)} ${c.kind.padEnd(8)} ${String(c.items).padStart(7)} items  ${c.title}  (${c.source})`);
      }
      return 0;
    } finally {
      host.close();
    }
  },
};
