// The channel roll-up engine's program: the period's item digests in, the channel digest out.
// Job input: channel, title, period {kind, key, start, end}, members [{item, title, publishedAt, path}],
// summarySentences, moments.
import fs from 'node:fs';
import path from 'node:path';
import { EngineJobError, serveJobs } from '../program-kit';
import { digestRecord } from '../../../src-shared/digest/record';
import { channelDigestRecord } from '../../../src-shared/digest/channel-record';
import { numberInput, stringInput } from '../../digest/job-files';
import { rollUp, type RollupItem } from '../../digest/rollup';
import type { CalendarPeriod } from '../../../src-shared/schedule/calendar-period';
import { logLine } from '../../../src-shared/runs/log-keys';

serveJobs(async (job, io) => {
  const members = job.input.members;
  const period = job.input.period as CalendarPeriod | undefined;
  if (!Array.isArray(members) || members.length === 0 || !period || typeof period.key !== 'string') {
    throw new EngineJobError('JOB_INPUT_INVALID', 'The job input has no period or no item digests to roll up.', { field: 'members' });
  }
  const items: RollupItem[] = [];
  for (const [i, m] of (members as { item: string; title: string; publishedAt: number; path: string }[]).entries()) {
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(m.path, 'utf8'));
    } catch (e) {
      throw new EngineJobError('INPUT_MISSING', `The digest of item "${m.item}" cannot be read.`, { item: m.item, errno: (e as NodeJS.ErrnoException).code ?? null });
    }
    const parsed = digestRecord.safeParse(json);
    if (!parsed.success) throw new EngineJobError('INPUT_INVALID', `The digest of item "${m.item}" is malformed.`, { item: m.item });
    items.push({ item: m.item, title: m.title, publishedAt: m.publishedAt, digest: parsed.data });
    io.progress((i + 1) / (members.length + 1));
  }
  const record = channelDigestRecord.parse(rollUp(items, {
    channel: stringInput(job.input, 'channel'), title: typeof job.input.title === 'string' ? job.input.title : '',
    period, summarySentences: numberInput(job.input, 'summarySentences', 5), moments: numberInput(job.input, 'moments', 8),
  }));
  const file = `${period.key}.json`;
  fs.writeFileSync(path.join(job.outputDir, file), `${JSON.stringify(record, null, 1)}\n`);
  io.log('info', logLine('rolledUp', { digests: items.length, period: period.key }));
  return { files: [{ name: 'channel-digest', path: file }], metadata: { items: items.length, period: period.key } };
});
