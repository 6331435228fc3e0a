// `backlot transcript ITEM --format F [--out FILE]`: an item's transcript in any export format, on
// stdout or written atomically to a file; an item without one is refused with its state and reason.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { writeFileAtomically } from '../write-atomically';
import { exportItemTranscript } from '../../api/transcript-view';
import { TRANSCRIPT_FORMATS, isTranscriptFormat } from '../../../src-shared/transcript/render/formats';

const USAGE = `transcript ITEM --format ${TRANSCRIPT_FORMATS.join('|')} [--out FILE] [--data DIR]`;

export const transcriptCommand: Command = {
  name: 'transcript',
  summary: 'Print or write an item\'s transcript as JSON, SRT, VTT, TXT or DOCX',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' } }, USAGE);
    if (positionals.length !== 1) throw new CliUsageError(`transcript takes one item. Usage: backlot ${USAGE}`);
    const format = values.format;
    if (format === undefined) throw new CliUsageError(`transcript needs --format, one of ${TRANSCRIPT_FORMATS.join(', ')}.`);
    if (!isTranscriptFormat(format)) throw new CliUsageError(`--format must be one of ${TRANSCRIPT_FORMATS.join(', ')}, not "${format}".`);
    if (format === 'docx' && values.out === undefined && process.stdout.isTTY) {
      throw new CliUsageError('A DOCX transcript is a binary file; pass --out FILE (or redirect the output).');
    }
    const [item] = positionals;
    return withApp(values.data, async (app) => {
      const rendered = await exportItemTranscript(app.host, await app.dispatcher.prepare(), app.dispatcher.settings.values(), item, format);
      if (values.out !== undefined) {
        writeFileAtomically(values.out, rendered.data);
        process.stderr.write(`backlot: wrote the ${format} transcript of ${item} to ${values.out}\n`);
      } else {
        process.stdout.write(rendered.data);
      }
      return 0;
    });
  },
};
