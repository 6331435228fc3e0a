// `backlot search QUERY [--speaker NAME] [--channel ID] [--limit N] [--json]`: the library-wide
// transcript search from a terminal, the same function the window's search calls.
import type { Command } from './index';
import { CliUsageError, numberFlag, parseCommandArgs } from '../args';
import { withLibrary } from '../app';
import { searchTranscripts } from '../../transcripts/search';
import { DEFAULT_SEARCH_LIMIT } from '../../../src-shared/search/query';
import { clockTimecode } from '../../../src-shared/transcript/render/timecode';

const USAGE = 'search QUERY [--speaker NAME] [--channel ID] [--limit N] [--data DIR] [--json]';
const FLAGS = {
  data: { type: 'string' },
  speaker: { type: 'string' },
  channel: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const searchCommand: Command = {
  name: 'search',
  summary: 'Search every transcript: words, "phrases", prefix*, OR, -exclusions; best first',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    if (positionals.length === 0) throw new CliUsageError(`search needs a query. Usage: backlot ${USAGE}`);
    const limit = numberFlag(values.limit, 'limit', DEFAULT_SEARCH_LIMIT);
    if (!Number.isInteger(limit)) throw new CliUsageError(`--limit must be a whole number, got "${values.limit}".`);
    // Unquoted words on the command line are one query, as typed into a search box.
    const query = positionals.join(' ');
    return withLibrary(values.data, (host) => {
      const hits = searchTranscripts(host.searchDb, query, { speaker: values.speaker, channel: values.channel, limit });
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ hits })}\n`);
        return 0;
      }
      if (hits.length === 0) process.stdout.write('No transcript matches.\n');
      for (const h of hits) {
        process.stdout.write(`${h.title} (${h.item}) ${clockTimecode(h.start)}  ${h.speaker === null ? '' : `${h.speaker}: `}${h.text}\n`);
      }
      return 0;
    });
  },
};
