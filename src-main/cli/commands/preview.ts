// `backlot preview TREE.json [--data DIR] [--json]`: the what-if preview of the window's Rules view
// from the command line: the simulator on the live library with the stored tree and with this one,
// side by side. The tree is refused with its node named, like `backlot tree set`, and nothing is stored.
import fs from 'node:fs';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { engineProfileFlag } from '../engine-flags';
import { createHandlers } from '../../api/handlers';
import type { PreviewOutcomeDto, PreviewSpanDto } from '../../../src-shared/api/window-contract';

const USAGE = 'preview TREE.json [--data DIR] [--engines production|test] [--json]';

export const previewCommand: Command = {
  name: 'preview',
  summary: 'Simulate the live library with a policy tree beside the stored one (nothing is saved)',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' }, engines: { type: 'string' } }, USAGE);
    const engines = engineProfileFlag(values.engines);
    if (positionals.length !== 1) throw new CliUsageError(`preview takes one tree file. Usage: backlot ${USAGE}`);
    const file = positionals[0];
    let tree: unknown;
    try {
      tree = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CliUsageError(code ? `cannot read ${file}: ${code}.` : `${file} is not valid JSON: ${(e as Error).message}.`, 1);
    }
    return withApp(values.data, async (app) => {
      const result = await createHandlers(app.host, app.dispatcher)['preview.run']({ tree });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return 0;
      }
      const { library } = result;
      const lines = [
        `Library: ${library.items} items in ${library.channels} channels${library.scale > 1 ? `; simulated on ${library.simulatedItems} of them (times ×${library.scale})` : ''}.`,
        `${'operation'.padEnd(18)}${'to do'.padStart(8)}  ${'stored tree'.padEnd(16)}${'this tree'.padEnd(16)}`,
        ...result.current.operations.map((op, i) => {
          const edited = result.edited.operations[i];
          return `${op.operation.padEnd(18)}${String(op.backlog).padStart(8)}  ${finish(op).padEnd(16)}${finish(edited).padEnd(16)}`;
        }),
        `A new upload is done after: ${seconds(result.current.newUpload.doneAfterS)} with the stored tree, ${seconds(result.edited.newUpload.doneAfterS)} with this one.`,
        ...holds('stored tree', result.current),
        ...holds('this tree', result.edited),
        ...changed('node', result.current.nodes.map((n) => ({ ...n, key: n.node })), result.edited.nodes.map((n) => ({ ...n, key: n.node }))),
        ...changed('channel', result.current.channels.map((c) => ({ ...c, key: c.channel })), result.edited.channels.map((c) => ({ ...c, key: c.channel }))),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    }, { engines });
  },
};

function finish(op: PreviewOutcomeDto['operations'][number]): string {
  return op.estimatedFinishS === null ? `never (${op.left} held)` : seconds(op.estimatedFinishS);
}

/** What held the work left over, per operation (docs/scheduling.md "What-if diff"). */
function holds(tree: string, outcome: PreviewOutcomeDto): string[] {
  return outcome.operations.filter((o) => o.held.length > 0)
    .map((o) => `Held with the ${tree}: ${o.operation}: ${o.held.map((h) => `${h.code}${Object.keys(h.params).length > 0 ? ` ${JSON.stringify(h.params)}` : ''} ×${h.count}`).join(', ')}.`);
}

/** The nodes or channels whose first start or finish differs between the trees, before → after. */
function changed(kind: string, before: (PreviewSpanDto & { key: string })[], after: (PreviewSpanDto & { key: string })[]): string[] {
  const keys = [...new Set([...before.map((r) => r.key), ...after.map((r) => r.key)])];
  const span = (r: PreviewSpanDto | undefined) => (r?.firstStartS == null ? 'not started' : `${seconds(r.firstStartS)}–${seconds(r.finishS)}`);
  return keys.flatMap((k) => {
    const b = before.find((r) => r.key === k);
    const a = after.find((r) => r.key === k);
    return b?.firstStartS === a?.firstStartS && b?.finishS === a?.finishS ? [] : [`Changed ${kind} ${k}: ${span(b)} → ${span(a)}.`];
  });
}

function seconds(s: number | null): string {
  if (s === null) return 'never';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}
