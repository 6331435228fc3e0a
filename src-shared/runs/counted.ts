// A count and its noun as a log line says it ("1 segment", "2 segments"): the run log is read by a
// person, and "1 segments" reads as a bug (issue 20 item 8). English only: the log is the engine's.
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
