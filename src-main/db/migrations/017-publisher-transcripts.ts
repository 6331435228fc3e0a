// Version 17: the publisher's own transcripts (docs/transcripts.md "The publisher's transcript"). An
// item keeps what its feed offers (<podcast:transcript>: url, type, language, rel) as JSON, written
// by the sync; and the last refusal of the publisher-transcript engine (its code and the URL it
// tried), written only by that engine's failure, so the local engine takes the item until the
// feed offers something else.
export const sql = `
ALTER TABLE items ADD COLUMN transcripts_json TEXT;
ALTER TABLE items ADD COLUMN transcript_fallback TEXT;
`;
