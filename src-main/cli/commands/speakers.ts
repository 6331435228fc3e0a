// `backlot speakers`: the people the library has recognised (docs/speakers.md). list, rename,
// merge (two profiles are one person), split (one item was wrongly given to a profile), forget
// (delete a person's profile and voiceprint) and enrol (a profile from a chosen clip of a file).
import path from 'node:path';
import { CliUsageError, parseCommandArgs } from '../args';
import { BacklotError } from '../../../src-shared/errors';
import { withApp } from '../app';
import { ProfileStore } from '../../speakers/profiles/profile-store';
import { embedClip } from '../../speakers/enrol';
import { loadXVectorModel } from '../../speakers/xvector/extractor';
import { sileroVadModel, xvectorModelDir } from '../../speakers/model-paths';
import { XVECTOR_MODEL_NAME } from '../../speakers/jobs/diarize-job';
import type { Command } from './index';

const USAGE = [
  'backlot speakers list [--json]',
  'backlot speakers rename ID NAME',
  'backlot speakers merge KEEP OTHER',
  'backlot speakers split ID ITEM',
  'backlot speakers forget ID',
  'backlot speakers enrol ID|--new NAME FILE|--item ITEM [--from S] [--to S]',
].join(' | ');

const FLAGS = {
  data: { type: 'string' },
  json: { type: 'boolean' },
  new: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  item: { type: 'string' },
} as const;

function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new CliUsageError(`--${name} must be a number of seconds, got "${value}".`);
  return n;
}

export const speakersCommand: Command = {
  name: 'speakers',
  summary: 'Speaker profiles: list, rename, merge, split, forget, enrol',
  usage: 'speakers list|rename|merge|split|forget|enrol [--data DIR]',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    const [verb, ...rest] = positionals;
    const arity = (n: number, form: string): void => {
      if (rest.length !== n) throw new CliUsageError(`Usage: backlot ${form}`);
    };
    const out = (text: string, json: Record<string, unknown>): void => {
      process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
    };
    switch (verb) {
      case 'list':
        arity(0, 'speakers list [--json]');
        return withApp(values.data, (app) => {
          const speakers = new ProfileStore(app.host.db).list();
          if (values.json) {
            process.stdout.write(`${JSON.stringify({ speakers: speakers.map((s) => ({ id: s.id, name: s.name, items: s.items, seconds: s.seconds })) })}\n`);
          } else if (speakers.length === 0) {
            process.stdout.write('No speakers yet: they appear once items are diarized and attributed.\n');
          } else {
            const width = Math.max(4, ...speakers.map((s) => s.name.length));
            process.stdout.write(`${'ID'.padEnd(17)} ${'NAME'.padEnd(width)} ${'ITEMS'.padStart(5)} ${'SECONDS'.padStart(9)}\n`);
            for (const s of speakers) process.stdout.write(`${s.id.padEnd(17)} ${s.name.padEnd(width)} ${String(s.items).padStart(5)} ${s.seconds.toFixed(1).padStart(9)}\n`);
          }
          return 0;
        });
      case 'rename':
        arity(2, 'speakers rename ID NAME');
        return withApp(values.data, (app) => {
          const store = new ProfileStore(app.host.db, app.host.work);
          app.host.transaction(() => store.rename(rest[0], rest[1], app.host.now()));
          out(`Speaker ${rest[0]} is now "${rest[1].trim()}".`, { id: rest[0], name: rest[1].trim() });
          return 0;
        });
      case 'merge':
        arity(2, 'speakers merge KEEP OTHER');
        return withApp(values.data, (app) => {
          const store = new ProfileStore(app.host.db, app.host.work);
          app.host.transaction(() => store.merge(rest[0], rest[1], app.host.now()));
          out(`Speaker ${rest[1]} is merged into ${rest[0]}.`, { id: rest[0], merged: rest[1] });
          return 0;
        });
      case 'split':
        arity(2, 'speakers split ID ITEM');
        return withApp(values.data, (app) => {
          const store = new ProfileStore(app.host.db, app.host.work);
          const fresh = app.host.transaction(() => store.split(rest[0], rest[1], app.host.now()));
          out(`Item ${rest[1]} now has its own speaker ${fresh}; its speaker-labelled transcript will be redone.`, { id: fresh, from: rest[0], item: rest[1] });
          return 0;
        });
      case 'forget':
        arity(1, 'speakers forget ID');
        return withApp(values.data, (app) => {
          const store = new ProfileStore(app.host.db, app.host.work);
          const items = app.host.transaction(() => store.forget(rest[0]));
          out(`Speaker ${rest[0]} is forgotten: profile, voiceprint and embeddings deleted (${items.length} items no longer name them).`, { id: rest[0], items });
          return 0;
        });
      case 'enrol': {
        // The clip is a file, or an item of the library (its media), from --from to --to seconds.
        const target = values.new === undefined ? rest[0] : null;
        const fileArgs = rest.slice(values.new === undefined ? 1 : 0);
        if ((values.new === undefined && !target) || fileArgs.length !== (values.item === undefined ? 1 : 0)) {
          throw new CliUsageError('Usage: backlot speakers enrol ID|--new NAME FILE|--item ITEM [--from S] [--to S]');
        }
        const model = loadXVectorModel(xvectorModelDir());
        const fromS = seconds(values.from, 'from');
        const toS = seconds(values.to, 'to');
        return withApp(values.data, async (app) => {
          let file = fileArgs[0] ? path.resolve(fileArgs[0]) : '';
          if (values.item !== undefined) {
            const item = app.host.library.item(values.item);
            if (!item) throw new BacklotError('ITEM_NOT_FOUND', `There is no item ${values.item} in this library.`, { item: values.item });
            if (!item.media_path) throw new BacklotError('MEDIA_MISSING', `Item ${values.item} has no media file to enrol from.`, { item: values.item });
            file = item.media_path;
          }
          const clip = await embedClip(file, model, sileroVadModel(), { fromS, toS });
          const store = new ProfileStore(app.host.db, app.host.work);
          const source = `${values.item !== undefined ? `item ${values.item}` : file} ${fromS ?? 0}-${toS ?? 'end'}`;
          const id = app.host.transaction(() => store.enrol(target, values.new ?? null, XVECTOR_MODEL_NAME, { ...clip, source }, app.host.now()));
          out(`Enrolled ${clip.seconds} s of speech into speaker ${id}.`, { id, seconds: clip.seconds });
          return 0;
        });
      }
      default:
        throw new CliUsageError(`speakers knows list, rename, merge, split, forget and enrol. Usage: ${USAGE}`);
    }
  },
};
