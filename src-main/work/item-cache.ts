// What the work store last read or wrote of recently derived items: each item's facts (items ⋈
// channels) and its work rows, so finishing a unit does not read them again (docs/benchmarks.md
// "Pick throughput"). The work store is the one writer of `work` and keeps these rows as it writes
// them; the library tells it when an item's or a channel's facts change; a rollback or another
// connection's commit forgets everything. Bounded: the entry used longest ago goes when a new one
// would pass the limit (an item whose work is all done is not asked for again).

export class ItemCache<Facts, Row> {
  private readonly facts = new Map<string, Facts>();
  private readonly rows = new Map<string, Map<string, Row>>();

  constructor(private readonly limit: number) {}

  factsOf(itemId: string): Facts | undefined {
    const f = this.facts.get(itemId);
    if (f !== undefined) {
      // Most recently used last: a Map iterates in insertion order.
      this.facts.delete(itemId);
      this.facts.set(itemId, f);
    }
    return f;
  }

  setFacts(itemId: string, facts: Facts): void {
    if (!this.facts.has(itemId) && this.facts.size >= this.limit) this.facts.delete(this.facts.keys().next().value!);
    this.facts.set(itemId, facts);
  }

  /** The item's work rows by operation, as last read or written (the caller may change them in place). */
  rowsOf(itemId: string): Map<string, Row> | undefined {
    const r = this.rows.get(itemId);
    if (r !== undefined) {
      this.rows.delete(itemId);
      this.rows.set(itemId, r);
    }
    return r;
  }

  setRows(itemId: string, rows: Map<string, Row>): void {
    if (!this.rows.has(itemId) && this.rows.size >= this.limit) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(itemId, rows);
  }

  /** One cached work row, if the item's rows are cached. */
  row(operation: string, itemId: string): Row | undefined {
    return this.rows.get(itemId)?.get(operation);
  }

  forgetRows(itemId: string): void {
    this.rows.delete(itemId);
  }

  forgetItem(itemId: string): void {
    this.facts.delete(itemId);
    this.rows.delete(itemId);
  }

  /** A channel's facts changed (its settings, its removal): every item's facts are read again. */
  forgetFacts(): void {
    this.facts.clear();
  }

  clear(): void {
    this.facts.clear();
    this.rows.clear();
  }
}
