// The operations the simulator knows: the seven that spec/scenario.md names (DESIGN §2). An
// operation the project added later (channel-digest) stays out, so every scenario gives the same
// output byte for byte as before it existed; a scenario that names one is refused as before.
import { CATALOG, type OperationId, type OperationSpec } from '../../src-shared/catalog/operations';

export const SCENARIO_OPERATION_IDS = [
  'sync', 'download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest',
] as const satisfies readonly OperationId[];

export type ScenarioOperationId = (typeof SCENARIO_OPERATION_IDS)[number];

/** The catalog as the simulator sees it: its topological order, without the later operations. */
export const SCENARIO_OPERATIONS: readonly OperationSpec[] = CATALOG.filter((op) => (SCENARIO_OPERATION_IDS as readonly string[]).includes(op.id));
