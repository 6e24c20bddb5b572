// Numbered migrations of the team database (schema `team`), applied in order by migrate.ts, each in
// its own transaction. Append new ones; never edit one that has shipped.
import { sql as m001 } from './001-records.js';
import { sql as m002 } from './002-roles.js';
import { sql as m003 } from './003-operator-admin.js';
import { sql as m004 } from './004-receiver-role.js';
import { sql as m005 } from './005-event-projection.js';
import { sql as m006 } from './006-workspace-identity.js';
import { sql as m007 } from './007-snapshots.js';
import { sql as m008 } from './008-writer-turns.js';
import { sql as m009 } from './009-claims.js';
import { sql as m010 } from './010-chain.js';
import { sql as m011 } from './011-event-evidence.js';
import { sql as m012 } from './012-charge-guards.js';
import { sql as m013 } from './013-one-resolution.js';
import { sql as m014 } from './014-operator-notify.js';
import { sql as m015 } from './015-restore-events.js';
import { sql as m016 } from './016-serve-scale.js';
import { sql as m017 } from './017-cheaper-row-triggers.js';
import { sql as m018 } from './018-callback-said-again.js';
import { sql as m019 } from './019-claims-row-lock.js';
import { sql as m020 } from './020-restore-guards.js';

export interface TeamMigration {
  version: number;
  name: string;
  sql: string;
}

export const teamMigrations: TeamMigration[] = [
  { version: 1, name: 'records', sql: m001 },
  { version: 2, name: 'roles', sql: m002 },
  { version: 3, name: 'operator-admin', sql: m003 },
  { version: 4, name: 'receiver-role', sql: m004 },
  { version: 5, name: 'event-projection', sql: m005 },
  { version: 6, name: 'workspace-identity', sql: m006 },
  { version: 7, name: 'snapshots', sql: m007 },
  { version: 8, name: 'writer-turns', sql: m008 },
  { version: 9, name: 'claims', sql: m009 },
  { version: 10, name: 'chain', sql: m010 },
  { version: 11, name: 'event-evidence', sql: m011 },
  { version: 12, name: 'charge-guards', sql: m012 },
  { version: 13, name: 'one-resolution', sql: m013 },
  { version: 14, name: 'operator-notify', sql: m014 },
  { version: 15, name: 'restore-events', sql: m015 },
  { version: 16, name: 'serve-scale', sql: m016 },
  { version: 17, name: 'cheaper-row-triggers', sql: m017 },
  { version: 18, name: 'callback-said-again', sql: m018 },
  { version: 19, name: 'claims-row-lock', sql: m019 },
  { version: 20, name: 'restore-guards', sql: m020 },
];
