// Version 11: speaker profiles (docs/speakers.md). A profile is a person: a name (null shows as
// "Speaker N"), a voiceprint (unit-length mean of its assignments' embeddings) and, once merged
// into another, the id it now resolves to, so transcripts that name the old id still show the
// right person. An assignment ties one item's diarized cluster (or an enrolment clip) to a
// profile with the embedding and the seconds it brings; a forgotten profile's clusters stay as
// assignments with no profile, so re-running attribution does not bring the person back.
export const sql = `
CREATE TABLE speaker_profiles (
  id          TEXT PRIMARY KEY,
  number      INTEGER NOT NULL UNIQUE,
  name        TEXT,
  model       TEXT NOT NULL,
  voiceprint  BLOB,
  merged_into TEXT REFERENCES speaker_profiles(id),
  created_at  REAL NOT NULL,
  updated_at  REAL NOT NULL
);
CREATE INDEX speaker_profiles_merged ON speaker_profiles(merged_into) WHERE merged_into IS NOT NULL;

CREATE TABLE speaker_assignments (
  id          INTEGER PRIMARY KEY,
  item_id     TEXT REFERENCES items(id),
  cluster     INTEGER,
  profile_id  TEXT REFERENCES speaker_profiles(id),
  source      TEXT NOT NULL CHECK (source IN ('matched', 'new', 'enrolled', 'moved', 'forgotten')),
  similarity  REAL,
  seconds     REAL NOT NULL,
  model       TEXT NOT NULL,
  embedding   BLOB NOT NULL,
  clip        TEXT,
  created_at  REAL NOT NULL,
  CHECK ((item_id IS NULL) = (cluster IS NULL)),
  UNIQUE (item_id, cluster)
);
CREATE INDEX speaker_assignments_profile ON speaker_assignments(profile_id);
`;
