// A run log line's message key and its parameters (JSON), written at the line's source so the window
// says it in the reader's language (docs/i18n.md "Log lines"). Null for plain lines and old rows,
// which the window shows by their English text, still stored beside them.
export const sql = `
ALTER TABLE run_logs ADD COLUMN key TEXT;
ALTER TABLE run_logs ADD COLUMN params TEXT;
`;
