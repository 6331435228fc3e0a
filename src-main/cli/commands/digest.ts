// `backlot digest ITEM` and `backlot digest --channel ID [--period KEY]`: an item's digest (summary
// and key moments with speaker and start time) or a channel's roll-up of a period, from a terminal.
import path from 'node:path';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { channelDigest, itemDigest } from '../../api/read-digest';
import { calendarPeriod, periodFromKey } from '../../../src-shared/schedule/calendar-period';

const USAGE = 'digest ITEM | --channel ID [--period KEY|current] [--data DIR] [--json]';

function clock(s: number): string {
  const t = Math.floor(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = t % 60;
  return `${h > 0 ? `${h}:` : ''}${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(sec).padStart(2, '0')}`;
}

export const digestCommand: Command = {
  name: 'digest',
  summary: 'Show an item\'s digest (summary, key moments) or a channel\'s digest of a period',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' }, channel: { type: 'string' }, period: { type: 'string' } }, USAGE);
    const channel = values.channel;
    if ((channel === undefined) === (positionals.length !== 1) || positionals.length > 1) throw new CliUsageError(`digest takes one item, or --channel ID. Usage: backlot ${USAGE}`);
    if (values.period !== undefined && channel === undefined) throw new CliUsageError(`--period goes with --channel. Usage: backlot ${USAGE}`);
    if (values.period !== undefined && values.period !== 'current' && !periodFromKey(values.period)) {
      throw new CliUsageError(`--period must be a day (2025-03-14), an ISO week (2025-W11), a month (2025-03) or "current"; got "${values.period}".`);
    }
    return withApp(values.data, async (app) => {
      const arbiter = await app.dispatcher.prepare();
      const out = (s: string) => process.stdout.write(`${s}\n`);
      if (channel !== undefined) {
        const key = values.period === 'current' ? calendarPeriod(app.host.now(), app.dispatcher.settings.get('digest.channel.period')).key : values.period;
        const d = channelDigest(app.host, arbiter, path.dirname(app.host.db.name), channel, key);
        if (values.json) { out(JSON.stringify(d)); return 0; }
        out(`${d.title || d.channel}, ${d.period.key} (${d.items.length} item${d.items.length === 1 ? '' : 's'})`);
        out('');
        out(d.summary || '(nothing to say)');
        for (const it of d.items) out(`\n- ${it.title || it.item}: ${it.summary}`);
        return 0;
      }
      const d = itemDigest(app.host, arbiter, positionals[0]);
      if (values.json) { out(JSON.stringify(d)); return 0; }
      out(`${d.item} (${d.engine}${d.usd > 0 ? `, $${d.usd.toFixed(4)}` : ''})`);
      out('');
      out(d.summary || '(nothing was said)');
      if (d.moments.length > 0) out('');
      for (const m of d.moments) out(`${clock(m.start).padStart(8)}  ${m.speaker ?? '-'}: ${m.text}`);
      return 0;
    });
  },
};
