// Snapshots of the folded record, so a new desktop need not replay a year of events into SQLite one
// insert at a time (team/snapshot/). A snapshot is a gzipped SQLite file made by a desk's bulk copy of
// the events up to one seq, stored in parts. It is a cache, not a record: a desktop that takes one
// checks every event and collection row in it against team.events before it uses any of it, and
// computes the reconciliation itself; one that does not verify is discarded and the desk replays.
//
// Who may publish: back_office (and admin, a member of it), the roles that read the whole record and
// already maintain it. made_by and made_at are set by the database, like an event's actor. Readers:
// every operator group, as for team.events. A new snapshot replaces the older ones (DELETE cascades
// to their parts). Each part is one block of block_bytes of the file, gzipped on its own, so a reader
// unzips several at once; PostgreSQL stores them as they are (STORAGE EXTERNAL): they are gzip already,
// and compressing them again would cost every reader CPU for nothing.
export const sql = `
CREATE TABLE team.snapshots (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  upto_seq bigint NOT NULL CHECK (upto_seq > 0),
  schema_version integer NOT NULL CHECK (schema_version > 0),
  events bigint NOT NULL CHECK (events > 0),
  collections bigint NOT NULL CHECK (collections >= 0),
  bytes bigint NOT NULL CHECK (bytes > 0),
  block_bytes integer NOT NULL CHECK (block_bytes > 0),
  sha256 bytea NOT NULL CHECK (length(sha256) = 32),
  parts integer NOT NULL CHECK (parts > 0),
  made_by name NOT NULL DEFAULT session_user,
  made_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX snapshots_newest ON team.snapshots (schema_version, upto_seq DESC);
CREATE TABLE team.snapshot_parts (
  snapshot_id bigint NOT NULL REFERENCES team.snapshots (id) ON DELETE CASCADE,
  part integer NOT NULL CHECK (part >= 0),
  data bytea NOT NULL,
  PRIMARY KEY (snapshot_id, part)
);
ALTER TABLE team.snapshot_parts ALTER COLUMN data SET STORAGE EXTERNAL;

REVOKE ALL ON team.snapshots, team.snapshot_parts FROM PUBLIC;
GRANT SELECT ON team.snapshots, team.snapshot_parts TO support, finance, back_office;
GRANT INSERT (upto_seq, schema_version, events, collections, bytes, block_bytes, sha256, parts) ON team.snapshots TO back_office;
GRANT INSERT ON team.snapshot_parts TO back_office;
GRANT DELETE ON team.snapshots, team.snapshot_parts TO back_office;
`;
