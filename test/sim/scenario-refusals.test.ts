// parseScenario refuses what the CLI-level tests do not reach, each time naming the field.
import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src-main/sim/scenario';

const channel = { id: 'c1', items: [{ id: 'v1', publishedAt: 0, durationS: 60 }] };

function refusal(input: unknown): { field: string; message: string } {
  try {
    parseScenario(input);
  } catch (e) {
    if (e instanceof ScenarioError) return { field: e.field, message: e.message };
    throw e;
  }
  throw new Error('the scenario was accepted');
}

describe('parseScenario refusals', () => {
  it.each([
    ['not an object', [], '(scenario)', 'a scenario must be a JSON object.'],
    ['two engines of one operation on one lane', { engines: { digest: [{ lane: 'cpu' }, { lane: 'cpu' }] } }, 'engines.digest[1].lane', 'two engines of digest on lane "cpu".'],
    ['an engine on an undeclared lane', { engines: { transcribe: { lane: 'tpu' } } }, 'engines.transcribe.lane', 'unknown lane "tpu"; declare it under "lanes".'],
    ['a repeated channel id', { channels: [channel, { id: 'c1' }] }, 'channels[1].id', 'channel id "c1" is used twice.'],
    ['a repeated item id', { channels: [channel, { id: 'c2', items: [{ id: 'v1', publishedAt: 0 }] }] }, 'channels[1].items[0].id', 'item id "v1" is used twice.'],
    ['a listed item with a generated id', { channels: [{ id: 'c1', items: [{ id: 'gi1', publishedAt: 0 }] }], generate: { seed: 1, channels: 1, items: 5 } }, 'generate', 'generated item id "gi1" collides with a listed item.'],
    ['an item event reusing an id', { channels: [channel], events: [{ at: 1, type: 'item', channel: 'c1', item: { id: 'v1', publishedAt: 1 } }] }, 'events[0].item.id', 'item id "v1" is used twice.'],
    ['explain of an unknown item', { channels: [channel], events: [{ at: 1, type: 'explain', item: 'nope', operation: 'transcribe' }] }, 'events[0].item', 'unknown item "nope".'],
    ['a failure of an unknown item', { channels: [channel], failures: [{ operation: 'transcribe', item: 'nope', times: 1, code: 'X' }] }, 'failures[0].item', 'unknown item "nope".'],
    ['quiet hours on an unknown lane', { settings: { quietHours: [{ lane: 'tpu', from: '01:00', to: '02:00' }] } }, 'settings.quietHours[0].lane', 'unknown lane "tpu".'],
    ['quiet hours with a bad time', { settings: { quietHours: [{ lane: 'gpu', from: '1am', to: '02:00' }] } }, 'settings.quietHours[0].from', 'from must be a time of day like "22:30" (00:00 to 24:00), got "1am".'],
    ['disk thresholds the wrong way round', { settings: { diskGate: { drainingBelowBytes: 10, shutBelowBytes: 20 } } }, 'settings.diskGate', 'shutBelowBytes must not exceed drainingBelowBytes'],
    ['a generate range upside down', { generate: { seed: 1, channels: 1, items: 1, durationS: { min: 10, max: 5 } } }, 'generate.durationS', 'max must be at least min'],
  ])('%s', (_what, input, field, message) => {
    expect(refusal(input)).toEqual({ field, message: `${field}: ${message}` });
  });

  it('accepts explain and failures of generated items and of items added by events', () => {
    expect(() => parseScenario({
      channels: [channel],
      generate: { seed: 1, channels: 2, items: 20 },
      events: [{ at: 5, type: 'item', channel: 'gc1', item: { id: 'late', publishedAt: 5 } }, { at: 6, type: 'explain', item: 'gi07', operation: 'download' }],
      failures: [{ operation: 'download', item: 'late', times: 1, code: 'X' }],
    })).not.toThrow();
  });
});
