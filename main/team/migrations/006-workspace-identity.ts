// Which team database this is. A desktop applies the team record into its SQLite by seq; seqs of two
// different team databases mean nothing to each other, so a desk pointed at another database (a new
// team, a typo in the URL) must refuse to mix them rather than skip or duplicate rows. One row, made
// here; a restore of this database keeps it, a new team database gets its own.
export const sql = `
CREATE TABLE team.workspace (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  one_row boolean NOT NULL DEFAULT true UNIQUE CHECK (one_row)
);
INSERT INTO team.workspace DEFAULT VALUES;
REVOKE ALL ON team.workspace FROM PUBLIC;
GRANT SELECT ON team.workspace TO support, finance, back_office;
`;
