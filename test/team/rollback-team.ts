// The team of the rollback tests (the record goes back in time: a failover, a restore from a dump): a
// migrated team database, one operator per desk under this file's suffix, and witness desks signed in as
// them (witness-desk.ts). Either on this file's own database of the test server (a restore), or on a
// primary with its asynchronous standby behind one TCP endpoint, the host name every desk uses (a failover).
import crypto from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import type { TeamRole } from '../../main/team/roles.shared.js';
import { serverUrl, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startPrimary, startStandby, suffix } from '../support/pg-replication.js';
import { startProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { signedCallback } from '../serve/harness.js';
import { until } from '../support/wait.js';
import { copyOf, pendingOf, witnessDesk, type WitnessDesk } from './witness-desk.js';

export interface RollbackTeam<W extends string> {
  logins: Record<W, { login: string; password: string }>;
  /** What every desk (and serve) verifies callbacks with; `signingKey` signs the tests' callbacks. */
  keys: { signingKey: string; servicePublicKey: null };
  /** The team database as `who` signs in to it. */
  urlFor(who: W): string;
  /** A desk signed in as `who`, with `who`'s role (opened by the test); closed by close(). */
  desk(who: W): WitnessDesk;
  /** A pool signed in as `who`; ended by close(). */
  pool(who: W): pg.Pool;
  /** A pool the test opened itself, ended by close(). */
  keep(p: pg.Pool): pg.Pool;
  /** Closes the desks, then ends the pools, then `between()` (serve: what else holds the database), then the database. */
  close(between?: () => unknown): Promise<void>;
}

/** The failover's team database on the primary (and, replicated, on the standby). */
export const FAILOVER_DB = 'team';

/** Migrates the team database at `ownerUrl` and adds one operator per desk, with its role. */
async function signUp<W extends string>(
  ownerUrl: string,
  roles: Record<W, TeamRole>,
): Promise<RollbackTeam<W>['logins']> {
  const owner = openTeamPool(ownerUrl);
  try {
    await migrate(owner);
    const s = suffix();
    const logins = {} as RollbackTeam<W>['logins'];
    for (const who of Object.keys(roles) as W[]) {
      const login = `${who}_${s}`;
      const password = `pw-${crypto.randomBytes(9).toString('hex')}`;
      await addOperator({ pool: owner }, { login, role: roles[who], password, displayName: `desk ${who}` });
      logins[who] = { login, password };
    }
    return logins;
  } finally {
    await owner.end();
  }
}

function rollbackTeam<W extends string>(
  roles: Record<W, TeamRole>,
  logins: RollbackTeam<W>['logins'],
  urlFor: (who: W) => string,
  stop: () => Promise<void>,
): RollbackTeam<W> {
  const keys = { signingKey: crypto.randomBytes(24).toString('hex'), servicePublicKey: null };
  const desks: WitnessDesk[] = [];
  const pools: pg.Pool[] = [];
  const keep = (p: pg.Pool) => (pools.push(p), p);
  return {
    logins,
    keys,
    urlFor,
    desk(who) {
      const d = witnessDesk({ url: urlFor(who), login: logins[who].login, role: roles[who], keys });
      desks.push(d);
      return d;
    },
    pool: (who) => keep(openTeamPool(urlFor(who), { onIdleError: () => undefined })),
    keep,
    async close(between) {
      for (const d of desks) await d.close().catch(() => undefined);
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      await between?.();
      await stop();
    },
  };
}

/** A team on this test file's own database of the test server: what a restore from pg_dump replaces. */
export async function restoreTeam<W extends string>(
  roles: Record<W, TeamRole>,
): Promise<RollbackTeam<W> & { tdb: TestDatabase }> {
  const tdb = await createTestDatabase();
  const drop = () => tdb.drop().catch(() => undefined);
  const logins = await signUp(tdb.adminUrl, roles).catch(async (e: unknown) => {
    await drop();
    throw e;
  });
  const urlFor = (who: W) => tdb.urlFor(logins[who].login, logins[who].password);
  return { ...rollbackTeam(roles, logins, urlFor, drop), tdb };
}

/** A team on a primary and its asynchronous standby, reached through one endpoint (`proxy`) that a failover repoints. */
export async function failoverTeam<W extends string>(
  roles: Record<W, TeamRole>,
): Promise<RollbackTeam<W> & { primary: PgServerInfo; standby: PgServerInfo; proxy: TcpProxy }> {
  const primary = await startPrimary();
  let standby: PgServerInfo | undefined;
  let proxy: TcpProxy | undefined;
  const stop = async () => {
    await proxy?.close();
    stopServerSync(primary.dir, primary.binDir);
    if (standby) stopServerSync(standby.dir, standby.binDir);
  };
  try {
    const admin = new pg.Client({ connectionString: serverUrl(primary, 'postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${FAILOVER_DB}`);
    await admin.end();
    const logins = await signUp(serverUrl(primary, FAILOVER_DB), roles);
    standby = await startStandby(primary);
    const endpoint = (proxy = await startProxy(primary.port));
    const urlFor = (who: W) =>
      `postgres://${logins[who].login}:${logins[who].password}@127.0.0.1:${endpoint.port}/${FAILOVER_DB}`;
    return { ...rollbackTeam(roles, logins, urlFor, stop), primary, standby, proxy: endpoint };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The newest event the team record holds (0 when none). */
export async function newestSeq(p: pg.Pool): Promise<number> {
  return Number((await p.query<{ m: string | null }>('SELECT max(seq) AS m FROM team.events')).rows[0]!.m ?? 0);
}

/** Every desk has pulled up to the record's newest event (read through `p`) and has nothing left to push. */
export async function synced(p: pg.Pool, ...desks: WitnessDesk[]): Promise<boolean> {
  const n = await newestSeq(p);
  return desks.every((d) => d.status().lastSeq >= n && pendingOf(d) === 0);
}

/**
 * Posts a callback signed with `signingKey` to serve at `url`; serve answers 200 (acknowledged). The keys
 * of the callback events the record (read through `reader`) holds for that reference and status.
 */
export async function postCallback(
  url: string,
  signingKey: string,
  reader: pg.Pool,
  ref: string,
  status = 'COMPLETED',
): Promise<string[]> {
  const cb = signedCallback(signingKey, { ref, status, amount: 1500.5 });
  const r = await fetch(url, { method: 'POST', body: cb.body, headers: cb.headers });
  expect(r.status).toBe(200);
  const keys = await reader.query<{ event_key: string }>(
    "SELECT event_key FROM team.events WHERE merchant_reference = $1 AND source = 'callback' AND status = $2",
    [ref, status],
  );
  return keys.rows.map((k) => k.event_key);
}

/** Once every desk and `fresh` are on the record (read through `p`), each desk's copy equals `fresh`'s (a replay from scratch), row for row. */
export async function expectReplayed(p: pg.Pool, fresh: WitnessDesk, ...desks: WitnessDesk[]): Promise<void> {
  await until('every desk on the record', () => synced(p, ...desks, fresh), 20_000);
  const replay = copyOf(fresh.db);
  for (const d of desks) expect(copyOf(d.db)).toEqual(replay);
}

/** The desks follow the record again: a charge at the first, then a callback (`post`) every desk applies within a second. */
export async function expectFollowing(
  p: pg.Pool,
  post: (ref: string) => Promise<string>,
  ...desks: [WitnessDesk, ...WitnessDesk[]]
): Promise<void> {
  const next = await desks[0].charge();
  await until('the charge', () => synced(p, ...desks), 10_000);
  const key = await post(next.merchantReference);
  for (const d of desks)
    await until(
      `${d.login} to apply the new callback`,
      () => d.db.prepare('SELECT 1 FROM collection_events WHERE dedupe_key = ?').get(key) !== undefined,
      1_000,
    );
}
