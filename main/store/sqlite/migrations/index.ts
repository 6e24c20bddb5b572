// Numbered migrations, applied in order, each in its own transaction. Append new ones; never edit
// one that has shipped.
import { sql as m001 } from './001-initial.js';
import { sql as m002 } from './002-collections-projection.js';
import { sql as m003 } from './003-reconciliation.js';
import { sql as m004 } from './004-balance-wallets.js';
import { sql as m005 } from './005-collections-page-indexes.js';
import { sql as m006 } from './006-callback-security-log.js';
import { sql as m007 } from './007-append-only-replace.js';
import { sql as m008 } from './008-reconcile-event-codes.js';
import { sql as m009 } from './009-settings-audit.js';
import { sql as m010 } from './010-reconciliation-partial-exception-index.js';
import { sql as m011 } from './011-reconciliation-partial-indexes.js';
import { sql as m012 } from './012-team-sync.js';
import { sql as m013 } from './013-team-workspace.js';
import { sql as m014 } from './014-reconcile-event-terms.js';
import { sql as m015 } from './015-team-outbox.js';
import { sql as m016 } from './016-team-outbox-evidence.js';
import { sql as m017 } from './017-team-chain.js';
import { sql as m018 } from './018-team-trust-state.js';
import { sql as m019 } from './019-team-refold.js';
import { sql as m020 } from './020-team-rollback.js';
import { sql as m021 } from './021-collections-day-text-indexes.js';
import { sql as m022 } from './022-drop-unused-indexes.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  { version: 1, name: 'initial', sql: m001 },
  { version: 2, name: 'collections-projection', sql: m002 },
  { version: 3, name: 'reconciliation', sql: m003 },
  { version: 4, name: 'balance-wallets', sql: m004 },
  { version: 5, name: 'collections-page-indexes', sql: m005 },
  { version: 6, name: 'callback-security-log', sql: m006 },
  { version: 7, name: 'append-only-replace', sql: m007 },
  { version: 8, name: 'reconcile-event-codes', sql: m008 },
  { version: 9, name: 'settings-audit', sql: m009 },
  { version: 10, name: 'reconciliation-partial-exception-index', sql: m010 },
  { version: 11, name: 'reconciliation-partial-indexes', sql: m011 },
  { version: 12, name: 'team-sync', sql: m012 },
  { version: 13, name: 'team-workspace', sql: m013 },
  { version: 14, name: 'reconcile-event-terms', sql: m014 },
  { version: 15, name: 'team-outbox', sql: m015 },
  { version: 16, name: 'team-outbox-evidence', sql: m016 },
  { version: 17, name: 'team-chain', sql: m017 },
  { version: 18, name: 'team-trust-state', sql: m018 },
  { version: 19, name: 'team-refold', sql: m019 },
  { version: 20, name: 'team-rollback', sql: m020 },
  { version: 21, name: 'collections-day-text-indexes', sql: m021 },
  { version: 22, name: 'drop-unused-indexes', sql: m022 },
];
