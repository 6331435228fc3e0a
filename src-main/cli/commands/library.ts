// `backlot library add|remove|scan|list|set`: the library from a terminal. Thin: every rule lives in
// src-main/library, so the API and the CLI cannot disagree.
import path from 'node:path';
import { Host } from '../../host/host';
import { databaseFile, existingLibraryFile } from '../data-dir';
import { CliUsageError, parseCommandArgs } from '../args';
import { addSource } from '../../library/add-source';
import { removeSource } from '../../library/remove-source';
import { feedNotes } from '../../library/apply-listing';
import { describeScan, scanFolders, type ScanResult } from '../../library/folder-scan';
import { redactUrl } from '../../library/net/url-policy';
import { SettingsStore } from '../../settings/settings-store';
import { ytDlpLister } from '../../engines/yt-dlp-listing/probe';
import { resourcesDir } from '../../engines/resources';
import { formatBytes } from '../../engines/download-progress';
import type { ChannelSummary } from '../../../src-shared/api/contract';
import type { Command } from './index';
import { setChannelTranscriptSetting } from '../../transcripts/source-choice';

const USAGE = [
  'backlot library add <folder | feed URL | channel URL> [--kind feed|platform] [--title T] [--json]',
  '       backlot library remove CHANNEL [--delete-media] [--json]',
  '       backlot library scan [--channel ID] [--json]',
  '       backlot library list [--json]',
  '       backlot library set CHANNEL transcripts.source|transcripts.autoCaptions VALUE|default [--json]',
  '  (each takes --data DIR)',
].join('\n');
const FLAGS = {
  data: { type: 'string' },
  title: { type: 'string' },
  channel: { type: 'string' },
  kind: { type: 'string' },
  'delete-media': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const out = (line: string) => process.stdout.write(`${line}\n`);

function warnAll(results: ScanResult[]): void {
  // Unreadable files are the user's to know about, but they are not a failure of the command.
  for (const r of results) for (const w of r.warnings) process.stderr.write(`backlot: warning: ${w.message}\n`);
}

/** Channels as listings show them: by title, sources without credentials. */
export function channelSummaries(host: Host): ChannelSummary[] {
  const counts = host.library.itemCounts();
  const notes = feedNotes(host);
  return host.library.channels().map((c) => ({
    id: c.id, kind: c.kind, platform: c.platform, title: c.title, source: c.kind === 'folder' ? c.source : redactUrl(c.source), items: counts.get(c.id) ?? 0,
    ...(notes.has(c.id) ? { feedNote: notes.get(c.id) } : {}),
  })).sort((a, b) => a.title.localeCompare(b.title) || (a.id < b.id ? -1 : 1));
}

export const libraryCommand: Command = {
  name: 'library',
  summary: 'Add a folder, feed or channel (fetched once first); remove one; rescan folders; list channels',
  usage: 'library add <folder|feed URL|channel URL> | remove CHANNEL | scan | list',
  help: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    const [verb, ...rest] = positionals;
    if (verb !== 'add' && verb !== 'scan' && verb !== 'list' && verb !== 'remove' && verb !== 'set') throw new CliUsageError(`library needs add, remove, scan, list or set. Usage: ${USAGE.split('\n')[0]}`);
    if (verb === 'set' && rest.length !== 3) throw new CliUsageError(`library set takes a channel, a key and a value. Usage: ${USAGE.split('\n')[4].trim()}`);
    if ((verb === 'add' || verb === 'remove') && rest.length !== 1) throw new CliUsageError(`library ${verb} takes exactly one ${verb === 'add' ? 'source' : 'channel'}. Usage: ${USAGE.split('\n')[verb === 'add' ? 0 : 1].trim()}`);
    if (verb !== 'add' && verb !== 'remove' && verb !== 'set' && rest.length > 0) throw new CliUsageError(`library ${verb} takes no arguments. Usage: ${USAGE}`);
    if (values.kind !== undefined && values.kind !== 'feed' && values.kind !== 'platform') throw new CliUsageError(`--kind must be feed or platform, got "${values.kind}".`);
    if (values.kind !== undefined && verb !== 'add') throw new CliUsageError('--kind is for library add.');
    if (values['delete-media'] && verb !== 'remove') throw new CliUsageError('--delete-media is for library remove.');
    // Only add creates a library; scan, list and remove on a folder without one are refused.
    const file = verb === 'add' ? databaseFile(values.data) : existingLibraryFile(values.data);
    const host = new Host({ databaseFile: file });
    try {
      if (verb === 'add') {
        const settings = new SettingsStore(host.db).values();
        const lister = ytDlpLister({ resourcesDir: resourcesDir(), settings });
        const { channel, scan, probe, restored } = await addSource(host, rest[0], { title: values.title, kind: values.kind as 'feed' | 'platform' | undefined, lister, maxBytes: settings['feeds.maxBytes'] });
        if (scan) warnAll([scan]);
        if (values.json) {
          const summary = channelSummaries(host).find((c) => c.id === channel.id);
          out(JSON.stringify({ channel: summary, scan: scan ?? null, probe: probe ?? null, restored: restored ?? false }));
        } else {
          out(`${restored ? 'Added back' : 'Added'} ${channel.kind} channel "${channel.title}" as ${channel.id}.`);
          if (scan) out(`Scanned: ${describeScan(scan)}`);
          else if (probe) out(`It lists ${probe.entries} ${probe.entries === 1 ? 'entry' : 'entries'}; they arrive with its first sync.`);
          if (probe?.note) out(`Note: ${probe.note}`);
          // A feed of only text items is kept (its entries are listed), but it has nothing to download (docs/feeds.md).
          if (probe?.kind === 'feed' && probe.media === 0 && probe.entries > 0) out('None of its entries has audio or video: it is a text-only feed, so nothing will be downloaded or transcribed.');
        }
        return 0;
      }
      if (verb === 'remove') {
        const r = removeSource(host, path.dirname(file), rest[0], { deleteMedia: values['delete-media'] === true });
        if (values.json) out(JSON.stringify({ removed: r }));
        else {
          out(`Removed "${r.title}" (${r.channel}) with ${r.items} ${r.items === 1 ? 'item' : 'items'}.`);
          if (r.deletedFiles > 0) out(`Deleted ${r.deletedFiles} downloaded ${r.deletedFiles === 1 ? 'file' : 'files'} (${formatBytes(r.deletedBytes)}).`);
          if (r.keptFiles > 0) out(`Kept ${r.keptFiles} downloaded ${r.keptFiles === 1 ? 'file' : 'files'}; --delete-media deletes them.`);
          if (r.sharedFiles > 0) out(`Kept ${r.sharedFiles} downloaded ${r.sharedFiles === 1 ? 'file' : 'files'} another channel's items still use.`);
        }
        return 0;
      }
      if (verb === 'set') {
        const [channelId, key, value] = rest;
        const settings = setChannelTranscriptSetting(host, channelId, key, value);
        if (values.json) out(JSON.stringify({ channel: channelId, settings }));
        else out(value === 'default' ? `Channel ${channelId} follows the library's ${key} again.` : `Channel ${channelId}: ${key} = ${value}.`);
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
        for (const c of channels) {
          out(`${c.title}  [${c.kind}, ${c.items} ${c.items === 1 ? 'item' : 'items'}]  ${c.id}  ${c.source}`);
          if (c.feedNote) out(`  note: ${c.feedNote}`);
        }
      }
      return 0;
    } finally {
      host.close();
    }
  },
};
