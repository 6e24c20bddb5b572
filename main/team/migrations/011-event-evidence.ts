// What a desk needs to check a signed event again by itself (team/evidence.ts): for a callback the
// signature headers as received (its body is the payload), for a redirect the query as captured. A
// writer's `signature` column is its own claim; each desk believes only its own check of this.
export const sql = `
ALTER TABLE team.events ADD COLUMN evidence text CHECK (length(evidence) <= 20000);
GRANT INSERT (evidence) ON team.events TO support, back_office, receiver;
`;
