// `backlot sim FILE.json`: runs a scenario and prints one JSON object. A scenario that is not
// valid is refused before it runs: exit 2 and one line naming the offending field.
import fs from 'node:fs';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { parseScenario, ScenarioError } from '../../sim/scenario';
import { simulate } from '../../sim/simulate';

export const simCommand: Command = {
  name: 'sim',
  summary: 'Run a scheduling scenario under a virtual clock and print its trace and metrics.',
  usage: 'sim FILE.json [--pretty]',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { pretty: { type: 'boolean' } }, this.usage);
    if (positionals.length !== 1) throw new CliUsageError(`sim takes one scenario file. Usage: backlot ${this.usage}`);
    const file = positionals[0];
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new CliUsageError(`cannot read the scenario ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new CliUsageError(`the scenario ${file} is not valid JSON: ${(e as Error).message.replace(/\s+/g, ' ')}.`);
    }
    let scenario;
    try {
      scenario = parseScenario(json);
    } catch (e) {
      if (e instanceof ScenarioError) throw new CliUsageError(`invalid scenario: ${e.message}`);
      throw e;
    }
    const out = simulate(scenario);
    process.stdout.write(`${JSON.stringify(out, null, values.pretty ? 2 : undefined)}\n`);
    return 0;
  },
};
