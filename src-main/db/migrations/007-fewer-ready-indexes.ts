// Version 7: two partial indexes fewer. Every unit that starts or ends flips `ready` on a row, and
// each partial index on ready rows is one more b-tree write; the per-channel "oldest" and
// "cheapest" indexes served only leaves naming a few channels with those orders, which now filter
// the global index instead.
export const sql = `
DROP INDEX IF EXISTS work_ready_ch_oldest;
DROP INDEX IF EXISTS work_ready_ch_cheapest;
`;
