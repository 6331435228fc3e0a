// `backlot models list|available|add|remove`: the model manager from a terminal (docs/models.md).
// `add` takes a catalog name or a URL/file with its checksum, and shows the download's ratio and, on a
// terminal, its ETA on stderr.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import { SettingsStore } from '../../settings/settings-store';
import { CliUsageError, parseCommandArgs } from '../args';
import { existingLibraryFile } from '../data-dir';
import {
  addModel, addModelByName, availableModels, catalogUrl, listModels, modelCatalog, modelsDirOf, removeModel,
  type AvailableModel, type DownloadProgress, type InstalledModel,
} from '../../models/index';
import type { Command } from './index';

const USAGE = 'backlot models list | available | add NAME | add (URL|FILE) --sha256 HEX [--id ID] | remove ID [--data DIR] [--json]';
const FLAGS = {
  data: { type: 'string' },
  json: { type: 'boolean' },
  sha256: { type: 'string' },
  id: { type: 'string' },
} as const;

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function describe(m: InstalledModel): Record<string, unknown> {
  return { id: m.id, file: m.file, path: m.path, bytes: m.bytes, sha256: m.sha256, source: m.source, installedAt: m.installedAt };
}

function human(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** One progress line: the ratio always, the ETA only where a person watches (a TTY). */
export function progressLine(p: DownloadProgress, tty: boolean): string {
  const ratio = p.totalBytes ? `${((100 * p.receivedBytes) / p.totalBytes).toFixed(1)}%` : human(p.receivedBytes);
  const of = p.totalBytes ? ` of ${human(p.totalBytes)}` : '';
  if (!tty || !p.totalBytes || p.bytesPerSecond <= 0) return `${ratio}${of}`;
  const eta = Math.max(0, Math.round((p.totalBytes - p.receivedBytes) / p.bytesPerSecond));
  return `${ratio}${of}, ${human(p.bytesPerSecond)}/s, ETA ${Math.floor(eta / 60)}:${String(eta % 60).padStart(2, '0')}`;
}

function progressReporter(json: boolean): (p: DownloadProgress) => void {
  const tty = process.stderr.isTTY === true;
  let lastPrinted = 0;
  let lastTenth = -1;
  return (p) => {
    if (json) return;
    const now = Date.now();
    const tenth = p.totalBytes ? Math.floor((10 * p.receivedBytes) / p.totalBytes) : -1;
    if (tty) {
      if (now - lastPrinted < 200 && p.receivedBytes !== p.totalBytes) return;
      lastPrinted = now;
      process.stderr.write(`\r${progressLine(p, true)}\x1b[K`);
      if (p.receivedBytes === p.totalBytes) process.stderr.write('\n');
    } else if (tenth !== lastTenth) {
      // Not a terminal: one line per tenth, so a log stays readable.
      lastTenth = tenth;
      process.stderr.write(`${progressLine(p, false)}\n`);
    }
  };
}

/** The models.baseUrl setting of the library (docs/models.md "Mirrors"). */
function baseUrlOf(data: string | undefined): string {
  const db = openDatabase(existingLibraryFile(data));
  try {
    return new SettingsStore(db).get('models.baseUrl');
  } finally {
    db.close();
  }
}

function availableJson(m: AvailableModel, baseUrl: string): Record<string, unknown> {
  return {
    name: m.name, id: m.id, engine: m.engine, languages: m.languages, approxBytes: m.approxBytes,
    checksum: m.checksum, url: catalogUrl(baseUrl, m), checksumSource: m.checksumSource, goodFor: m.goodFor, installed: m.installed,
  };
}

export const modelsCommand: Command = {
  name: 'models',
  summary: 'List installed or catalog models, add one by name or URL (checksum-verified), remove one',
  usage: 'models list | available | add NAME | add (URL|FILE) --sha256 HEX [--id ID] | remove ID',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
    const [verb, target, ...extra] = positionals;
    // Models belong to a library: a mistyped --data is refused, never a new models folder somewhere.
    const modelsDir = modelsDirOf(path.dirname(existingLibraryFile(values.data)));
    if (verb === 'list') {
      if (target !== undefined) throw new CliUsageError(`models list takes no argument. Usage: ${USAGE}`);
      const models = listModels(modelsDir);
      if (values.json) out(JSON.stringify({ models: models.map(describe) }, null, 2));
      else if (models.length === 0) out(`No models installed in ${modelsDir}.`);
      else for (const m of models) out(`${m.id.padEnd(28)} ${human(m.bytes).padStart(10)}  sha256 ${m.sha256.slice(0, 12)}…  ${m.file}`);
      return 0;
    }
    if (verb === 'available') {
      if (target !== undefined) throw new CliUsageError(`models available takes no argument. Usage: ${USAGE}`);
      const rows = availableModels(modelsDir, modelCatalog());
      if (values.json) out(JSON.stringify({ models: rows.map((m) => availableJson(m, baseUrlOf(values.data))) }, null, 2));
      else for (const m of rows) out(`${m.installed ? '*' : ' '} ${m.name.padEnd(27)} ${`~${human(m.approxBytes)}`.padStart(10)}  ${m.languages.join(',').padEnd(12)}  ${m.goodFor}`);
      if (!values.json) out('(* installed; add one with: backlot models add NAME)');
      return 0;
    }
    if (verb === 'add') {
      if (target === undefined || extra.length > 0) throw new CliUsageError(`models add takes one catalog name, URL or file. Usage: ${USAGE}`);
      // A catalog name has no slash and is not a file here; anything else is a URL or a path.
      const byName = !values.sha256 && !/^(https?|file):/i.test(target) && !/[\\/]/.test(target) && !fs.existsSync(target);
      if (!byName && !values.sha256) throw new CliUsageError(`models add needs --sha256 HEX (the file's checksum) for a URL or file. Usage: ${USAGE}`);
      if (byName && values.id) throw new CliUsageError(`models add NAME installs under the catalog's id; --id is for a URL or file. Usage: ${USAGE}`);
      const controller = new AbortController();
      const onSignal = (): void => controller.abort();
      process.once('SIGINT', onSignal);
      try {
        const onProgress = progressReporter(values.json === true);
        const model = byName
          ? (await addModelByName({ modelsDir, name: target, baseUrl: baseUrlOf(values.data), catalog: modelCatalog(), onProgress, signal: controller.signal })).model
          : await addModel({
            modelsDir, source: target, sha256: values.sha256, ...(values.id ? { id: values.id } : {}), onProgress, signal: controller.signal,
          });
        out(values.json ? JSON.stringify({ model: describe(model) }) : `Installed ${model.id} (${human(model.bytes)}) at ${model.path}`);
      } finally {
        process.off('SIGINT', onSignal);
      }
      return 0;
    }
    if (verb === 'remove') {
      if (target === undefined || extra.length > 0) throw new CliUsageError(`models remove takes one model id. Usage: ${USAGE}`);
      const model = removeModel(modelsDir, target);
      out(values.json ? JSON.stringify({ removed: describe(model) }) : `Removed ${model.id}.`);
      return 0;
    }
    throw new CliUsageError(`models needs list, available, add or remove. Usage: ${USAGE}`);
  },
};
