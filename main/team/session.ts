// The signed-in operator of a team desktop: their own pool (the login is the operator, so PostgreSQL's
// grants decide what they may do), their role, and the sync that keeps the local copy up to date.
import type pg from 'pg';
import type { TeamRole } from './operators.js';
import type { TeamSync } from './sync/pull.js';

export interface TeamSession {
  pool: pg.Pool;
  login: string;
  role: TeamRole;
  sync: TeamSync;
}
