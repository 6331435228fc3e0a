// Version 9: which engine made each output, and each engine's last known fingerprint, so a change
// to one engine (its model, its settings) makes stale only the outputs it made, and enabling a
// second engine for an operation changes nothing (docs/architecture.md "Fingerprints").
export const sql = `
ALTER TABLE work ADD COLUMN output_engine TEXT;

CREATE TABLE engine_config (
  engine_id   TEXT NOT NULL,
  operation   TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  PRIMARY KEY (engine_id, operation)
) WITHOUT ROWID;

CREATE INDEX work_output_engine ON work(output_engine) WHERE output_engine IS NOT NULL;
`;
