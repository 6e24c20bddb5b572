// A migrated team database for one test file, with a signed-in pool per operator. Logins are
// cluster-wide while each test file has its own database, so every login gets this file's suffix.
import crypto from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../main/team/migrate.js';
import type { TeamMigration } from '../../main/team/migrations/index.js';
import { addOperator } from '../../main/operations/operators.js';
import type { TeamRole } from '../../main/team/roles.shared.js';
import { openTeamPool } from '../../main/team/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

export interface TeamFixture {
  db: TestDatabase;
  /** The superuser on this database: set-up, and checks against the database itself. */
  owner: pg.Pool;
  /** Adds an operator (as the owner) and returns their login. */
  addOperator(role: TeamRole, name?: string): Promise<string>;
  password(login: string): string;
  /** A pool signed in as `login` (closed by close()). */
  signIn(login: string, password?: string): pg.Pool;
  close(): Promise<void>;
}

/** `migrations`: only these (a record from before a migration, filled, then migrated by the test); default all. */
export async function teamFixture(o: { migrations?: TeamMigration[] } = {}): Promise<TeamFixture> {
  const db = await createTestDatabase();
  const suffix = crypto.randomBytes(3).toString('hex');
  const pools: pg.Pool[] = [];
  const passwords = new Map<string, string>();
  const owner = openTeamPool(db.adminUrl);
  pools.push(owner);
  await migrate(owner, ...(o.migrations ? [o.migrations] : []));
  let n = 0;
  const fixture: TeamFixture = {
    db,
    owner,
    async addOperator(role, name = role) {
      const login = `${name}_${suffix}_${++n}`;
      const password = `pw-${crypto.randomBytes(12).toString('hex')}`;
      await addOperator({ pool: owner }, { login, role, password, displayName: `${name} ${n}` });
      passwords.set(login, password);
      return login;
    },
    password: (login) => passwords.get(login)!,
    signIn(login, password = passwords.get(login)!) {
      const p = openTeamPool(db.urlFor(login, password));
      pools.push(p);
      return p;
    },
    async close() {
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      await db.drop();
    },
  };
  return fixture;
}

let keys = 0;
/** A charge-side event with a fresh key (override what a test is about). */
export function event(
  over: Partial<import('../../main/team/events.js').NewTeamEvent> = {},
): import('../../main/team/events.js').NewTeamEvent {
  keys++;
  return {
    eventKey: `test:${process.pid}:${keys}`,
    merchantReference: `REF-${keys}`,
    source: 'initiate',
    kind: 'initialize_accepted',
    status: 'PENDING',
    amountMinor: 150_000,
    currency: 'NGN',
    signature: 'not_applicable',
    payload: null,
    occurredAt: Date.UTC(2026, 10, 23, 9, 0, 0) + keys,
    ...over,
  };
}

/**
 * Events written as a desk from before team migration 11 wrote them (no evidence column): for the tests
 * that fill a database at an older version and migrate it (appendEvents names evidence).
 */
export async function appendEventsBeforeEvidence(
  db: pg.Pool | pg.ClientBase,
  events: readonly import('../../main/team/events.js').NewTeamEvent[],
): Promise<void> {
  const rows = events.map((e) => ({
    event_key: e.eventKey,
    merchant_reference: e.merchantReference,
    internal_reference: e.internalReference ?? null,
    source: e.source,
    kind: e.kind,
    status: e.status ?? null,
    amount_minor: e.amountMinor === null || e.amountMinor === undefined ? null : String(e.amountMinor),
    currency: e.currency ?? null,
    signature: e.signature,
    payload: e.payload ?? null,
    note: e.note ?? null,
    payment_url: e.paymentUrl ?? null,
    status_message: e.statusMessage ?? null,
    occurred_at: new Date(e.occurredAt).toISOString(),
  }));
  await db.query(
    `INSERT INTO team.events (event_key, merchant_reference, internal_reference, source, kind, status, amount_minor,
                              currency, signature, payload, note, payment_url, status_message, occurred_at)
     SELECT d->>'event_key', d->>'merchant_reference', d->>'internal_reference', d->>'source', d->>'kind', d->>'status',
            (d->>'amount_minor')::bigint, d->>'currency', d->>'signature', d->>'payload', d->>'note', d->>'payment_url',
            d->>'status_message', (d->>'occurred_at')::timestamptz
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(d, n)
     ORDER BY n
     ON CONFLICT (event_key) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}
