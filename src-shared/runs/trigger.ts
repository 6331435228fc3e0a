// Who started a run (DESIGN §6): the arbiter's tree, a user's "run now", or a one-item ad-hoc start.
// One list for the database, the API, the CLI and the window.
export const RUN_TRIGGERS = ['arbiter', 'manual', 'ad-hoc'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const RUN_OUTCOMES = ['running', 'succeeded', 'failed', 'interrupted', 'skipped', 'cancelled'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];
