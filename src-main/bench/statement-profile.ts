// Where a pick's time goes: every SQL statement prepared while `run` runs is timed, so the pick
// benchmark can print, per statement, how often a pick runs it and what it costs. A diagnostic
// for docs/benchmarks.md, never on in the app (the timing itself adds about 0.2 µs a call).
import Database from 'better-sqlite3';

export interface StatementCost {
  sql: string;
  /** Executions per pick. */
  perPick: number;
  /** Mean microseconds per execution. */
  usEach: number;
  /** Microseconds per pick spent in this statement. */
  usPerPick: number;
}

type Method = 'run' | 'get' | 'all';

/** `run` is handed a function that zeroes the counts: call it when the measured part begins. */
export function profileStatements<T>(run: (startMeasuring: () => void) => T, picksOf: (result: T) => number): { result: T; statements: StatementCost[]; usPerPick: number } {
  const proto = Database.prototype as unknown as { prepare: (this: Database.Database, sql: string) => Database.Statement };
  const original = proto.prepare;
  const costs = new Map<string, { calls: number; ms: number }>();
  proto.prepare = function (this: Database.Database, sql: string) {
    const statement = original.call(this, sql);
    const key = sql.replace(/\s+/g, ' ').trim();
    let cost = costs.get(key);
    if (!cost) {
      cost = { calls: 0, ms: 0 };
      costs.set(key, cost);
    }
    const c = cost;
    for (const m of ['run', 'get', 'all'] as Method[]) {
      const call = (statement[m] as (...a: unknown[]) => unknown).bind(statement);
      (statement as unknown as Record<Method, (...a: unknown[]) => unknown>)[m] = (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return call(...args);
        } finally {
          c.ms += performance.now() - t0;
          c.calls++;
        }
      };
    }
    return statement;
  };
  let result: T;
  try {
    result = run(() => {
      for (const c of costs.values()) {
        c.calls = 0;
        c.ms = 0;
      }
    });
  } finally {
    proto.prepare = original;
  }
  const picks = Math.max(1, picksOf(result));
  const statements = [...costs.entries()]
    .filter(([, c]) => c.calls > 0)
    .map(([sql, c]) => ({ sql, perPick: round2(c.calls / picks), usEach: round2((c.ms * 1000) / c.calls), usPerPick: round2((c.ms * 1000) / picks) }))
    .sort((a, b) => b.usPerPick - a.usPerPick);
  return { result, statements, usPerPick: round2(statements.reduce((s, x) => s + x.usPerPick, 0)) };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
