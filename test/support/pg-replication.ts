// A primary and an asynchronous streaming standby on loopback, as many offices run PostgreSQL, with the
// failures a database administrator meets: replication cut (the standby stops receiving while the
// primary keeps committing), the primary stopped hard (-m immediate, as a crash), the standby promoted.
// What the primary committed after the cut is gone from the new primary: the "lost tail" of an
// asynchronous failover. The standby is made as its administrator would make it, with pg_basebackup -R
// as the postgres user.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  asServerUser,
  freePort,
  isRoot,
  postgresUser,
  serverUrl,
  startServer,
  startWatchdog,
  stopServerSync,
  TEMP_PREFIX,
  type PgServerInfo,
} from './postgres-server.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A primary that a standby may stream from: a replication line in pg_hba.conf and commits flushed. */
export function startPrimary(): Promise<PgServerInfo> {
  return startServer({
    hba: ['host replication all 127.0.0.1/32 scram-sha-256'],
    // Acknowledged means on the primary's disk (the throw-away default is off): what is lost at the
    // failover is what had not reached the standby, not what the primary never flushed.
    config: ['synchronous_commit = on', 'wal_level = replica', 'max_wal_senders = 4', 'hot_standby = on'],
  });
}

async function pgCtl(info: PgServerInfo, ...args: string[]): Promise<void> {
  const data = path.join(info.dir, 'data');
  const [cmd, argv] = asServerUser(info.binDir, 'pg_ctl', [
    '-D',
    data,
    '-l',
    path.join(info.dir, 'server.log'),
    '-w',
    '-t',
    '60',
    ...args,
  ]);
  await run(cmd, argv);
}

/** One query as the superuser on `database` of `info`. */
export async function superQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(
  info: PgServerInfo,
  sql: string,
  params: unknown[] = [],
  database = 'postgres',
): Promise<T[]> {
  const c = new pg.Client({ connectionString: serverUrl(info, database) });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/**
 * A streaming standby of `primary` (asynchronous: no synchronous_standby_names), from pg_basebackup -R as
 * the postgres user, listening on a port of its own. Resolves once it streams.
 */
export async function startStandby(primary: PgServerInfo): Promise<PgServerInfo> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), TEMP_PREFIX));
  fs.writeFileSync(path.join(dir, 'owner.pid'), String(process.pid));
  const data = path.join(dir, 'data');
  const socket = path.join(dir, 'socket');
  fs.mkdirSync(socket, { mode: 0o700 });
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    for (const p of [dir, socket]) fs.chownSync(p, uid, gid);
  }
  try {
    const [cmd, argv] = asServerUser(primary.binDir, 'pg_basebackup', [
      '-D',
      data,
      '-h',
      primary.host,
      '-p',
      String(primary.port),
      '-U',
      primary.superuser,
      '-X',
      'stream',
      '-c',
      'fast',
      '-R',
    ]);
    await run(cmd, argv, { env: { ...process.env, PGPASSWORD: primary.password } });
    // The copy brought the primary's own settings (its port and socket): the standby gets its own, and
    // the primary it streams from, named in full (-R's line holds no password when none was typed).
    const port = await freePort();
    const conninfo = `host=${primary.host} port=${primary.port} user=${primary.superuser} password=${primary.password} application_name=standby`;
    fs.writeFileSync(
      path.join(data, 'postgresql.auto.conf'),
      [
        `listen_addresses = '127.0.0.1'`,
        `port = ${port}`,
        `unix_socket_directories = '${socket}'`,
        `password_encryption = 'scram-sha-256'`,
        `max_connections = 200`,
        `fsync = off`,
        `full_page_writes = off`,
        `synchronous_commit = on`,
        `hot_standby = on`,
        `primary_conninfo = '${conninfo.replace(/'/g, "''")}'`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    if (isRoot()) {
      const { uid, gid } = postgresUser();
      fs.chownSync(path.join(data, 'postgresql.auto.conf'), uid, gid);
    }
    const info: PgServerInfo = { ...primary, dir, port };
    await pgCtl(info, 'start');
    startWatchdog(process.pid, dir, primary.binDir);
    for (const end = Date.now() + 30_000; ; await sleep(100)) {
      const rows = await superQuery<{ status: string }>(info, 'SELECT status FROM pg_stat_wal_receiver');
      if (rows[0]?.status === 'streaming') return info;
      if (Date.now() > end) throw new Error('the standby did not start streaming');
    }
  } catch (e) {
    stopServerSync(dir, primary.binDir);
    throw e;
  }
}

/** Waits until the standby has replayed everything the primary has written so far. */
export async function waitReplayed(primary: PgServerInfo, standby: PgServerInfo): Promise<void> {
  const { lsn } = (await superQuery<{ lsn: string }>(primary, 'SELECT pg_current_wal_flush_lsn()::text AS lsn'))[0]!;
  for (const end = Date.now() + 30_000; ; await sleep(50)) {
    const [r] = await superQuery<{ done: boolean }>(standby, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
      lsn,
    ]);
    if (r?.done) return;
    if (Date.now() > end) throw new Error(`the standby did not replay up to ${lsn}`);
  }
}

/**
 * Cuts replication on purpose: the standby forgets where its primary is (primary_conninfo emptied and
 * reloaded) and its WAL receiver is ended, so from now on what the primary commits never reaches it.
 */
export async function cutReplication(standby: PgServerInfo): Promise<void> {
  const conf = path.join(standby.dir, 'data', 'postgresql.auto.conf');
  const text = fs.readFileSync(conf, 'utf8').replace(/^primary_conninfo = .*$/m, "primary_conninfo = ''");
  fs.writeFileSync(conf, text);
  await pgCtl(standby, 'reload');
  for (const end = Date.now() + 30_000; ; await sleep(100)) {
    await superQuery(standby, 'SELECT pg_terminate_backend(pid) FROM pg_stat_wal_receiver WHERE pid IS NOT NULL');
    const rows = await superQuery(standby, 'SELECT 1 FROM pg_stat_wal_receiver WHERE pid IS NOT NULL');
    if (!rows.length) return;
    if (Date.now() > end) throw new Error('the standby kept receiving');
  }
}

/** The primary stopped as by a crash (its data folder is kept, but nothing else will come of it). */
export function crash(primary: PgServerInfo): Promise<void> {
  return pgCtl(primary, '-m', 'immediate', 'stop');
}

/** The standby becomes a primary (pg_ctl promote, waited for). */
export function promote(standby: PgServerInfo): Promise<void> {
  return pgCtl(standby, 'promote');
}

/** pg_dump of `database` in the custom format, to `file`, as the superuser over TCP. */
export async function dump(info: PgServerInfo, database: string, file: string): Promise<void> {
  await run(
    path.join(info.binDir, 'pg_dump'),
    ['-h', info.host, '-p', String(info.port), '-U', info.superuser, '-Fc', '-f', file, database],
    { env: { ...process.env, PGPASSWORD: info.password } },
  );
}

/**
 * What an administrator does to put last night's backup in place under the same name: the dump restored
 * into a new database, the database-wide grants given again (a dump of one database does not carry them:
 * the team's groups may connect, nobody else), then the old database dropped (its sessions ended) and the
 * new one renamed to its name. The desks and serve, pointed at that name, reconnect to the restored one.
 */
export async function restoreAsSameName(info: PgServerInfo, database: string, file: string): Promise<void> {
  const fresh = `${database}_restored`;
  await superQuery(info, `CREATE DATABASE ${fresh}`);
  await run(
    path.join(info.binDir, 'pg_restore'),
    ['-h', info.host, '-p', String(info.port), '-U', info.superuser, '--exit-on-error', '-d', fresh, file],
    { env: { ...process.env, PGPASSWORD: info.password } },
  );
  await superQuery(info, `REVOKE CONNECT, TEMPORARY ON DATABASE ${fresh} FROM PUBLIC`);
  await superQuery(info, `GRANT CONNECT ON DATABASE ${fresh} TO support, finance, back_office, admin, receiver`);
  await superQuery(info, `DROP DATABASE ${database} WITH (FORCE)`);
  await superQuery(info, `ALTER DATABASE ${fresh} RENAME TO ${database}`);
}

/** A random suffix, for logins that are cluster-wide. */
export const suffix = (): string => crypto.randomBytes(3).toString('hex');
