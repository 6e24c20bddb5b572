// What a teammate's desk needs to check a signed event of this desk again (team/evidence.ts: a
// redirect's query as captured): the team copy carries it in team.events.evidence (team migration 11),
// but this desk's collection_events does not keep it, so the outbox row does until the push sends it.
// Without it a desk's own redirects would reach the team unverifiable, unverified on every other desk.
export const sql = `
ALTER TABLE team_outbox ADD COLUMN evidence TEXT;
`;
