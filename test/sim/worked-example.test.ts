// The worked example in docs/scheduling.md is a real run: its scenario, run again, gives the start
// sequence and the explain answer the page shows.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { run } from './run';

it('docs/scheduling.md worked example matches a real run', () => {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/scheduling.md'), 'utf8');
  const example = doc.slice(doc.indexOf('## Worked example'));
  const json = /```json\n([\s\S]*?)```/.exec(example)![1];
  const r = run(JSON.parse(json));
  const table = [...example.matchAll(/^\| (\d+) \| (\S+) \| (\S+) \| (\d+) \|$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`);
  expect(table.length).toBe(6);
  expect(r.starts.map((s) => `${s.t} ${s.node} ${s.item} ${s.run}`)).toEqual(table);
  expect(r.explains).toHaveLength(1);
  expect(r.explains[0]).toMatchObject({ t: 26, item: 'p2', state: 'missing', reason: { code: 'PASSIVE_BEHIND', params: { node: 'backlog' } } });
  expect(r.metrics.nodes).toEqual({ new: { starts: 1, busyS: 10 }, talks: { starts: 3, busyS: 30 }, pods: { starts: 2, busyS: 20 } });
  expect(r.metrics.latency.transcribe).toEqual({ count: 6, p50: 10, p95: 50, max: 50 });
});
