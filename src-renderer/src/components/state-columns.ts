// The snapshot's six counts as table columns, in the order a user reads them: what is finished,
// what can run now, then what cannot and why (DESIGN §2).
export const STATE_COLUMNS = [
  { key: 'done', label: 'Done', help: 'Output present and current.' },
  { key: 'missing', label: 'Missing', help: 'No output yet; every input is present, so it can run.' },
  { key: 'stale', label: 'Stale', help: 'Output present but made with older settings; it can run again.' },
  { key: 'missingInput', label: 'Missing input', help: 'An input is gone and cannot be produced here.' },
  { key: 'deferred', label: 'Deferred', help: 'Held back by a rule: retry backoff, failed, or excluded.' },
  { key: 'blocked', label: 'Blocked', help: 'Waits on another operation that is not done yet.' },
] as const;

export type StateColumnKey = (typeof STATE_COLUMNS)[number]['key'];
