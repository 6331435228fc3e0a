// Version 4: each committed output remembers the engine job that produced it, so the startup
// sweep can tell from the commit journal whether a crash came before or after the record.
export const sql = `
ALTER TABLE work ADD COLUMN output_job TEXT;
CREATE INDEX work_output_job ON work(output_job) WHERE output_job IS NOT NULL;
`;
