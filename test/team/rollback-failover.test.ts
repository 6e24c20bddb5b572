// Issue 29: the team record goes back in time when an asynchronous standby is promoted after the primary
// committed events it never sent. Against real servers on loopback: a primary and its streaming standby
// (asynchronous), replication cut on purpose, the primary stopped hard, the standby promoted, and the one
// host name the desks and serve use (a TCP endpoint) repointed at it. Then every desk says the record
// lost events (not that someone altered it), the witnesses (each desk, and serve's journal) put back
// every event they held, exactly once, what nobody could prove or re-send is listed, and every desk's
// copy equals the new record row for row and follows it again.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainWords, rollbackWords } from '../../main/team/chain-words.shared.js';
import { migrate } from '../../main/team/migrate.js';
import { addOperator } from '../../main/operations/operators.js';
import { openTeamPool } from '../../main/team/pool.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { recordEvents, recordIntent, withTeamKey } from '../../main/team/record.js';
import { serverUrl, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import {
  crash,
  cutReplication,
  promote,
  startPrimary,
  startStandby,
  suffix,
  waitReplayed,
} from '../support/pg-replication.js';
import { startProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { signedCallback, startServe, type Serve } from '../serve/harness.js';
import { newIntent } from './sync-desk.js';
import { copyOf, pendingOf, recordKeys, waitUntil, witnessDesk, type WitnessDesk } from './witness-desk.js';

const DB = 'team';
let primary: PgServerInfo;
let standby: PgServerInfo;
let proxy: TcpProxy;
let serve: Serve | undefined;
let dir: string;
const signingKey = crypto.randomBytes(24).toString('hex');
const keys = { signingKey, servicePublicKey: null };
const logins: Record<'a' | 'b' | 'c' | 'e' | 'serve', { login: string; password: string }> = {} as never;
const desks: WitnessDesk[] = [];
const pools: pg.Pool[] = [];

/** Through the one host name (the endpoint), as every desk and serve reach the team database. */
const urlFor = (who: keyof typeof logins) =>
  `postgres://${logins[who].login}:${logins[who].password}@127.0.0.1:${proxy.port}/${DB}`;

function pool(who: keyof typeof logins): pg.Pool {
  const p = openTeamPool(urlFor(who), { onIdleError: () => undefined });
  pools.push(p);
  return p;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-failover-'));
  primary = await startPrimary();
  const admin = new pg.Client({ connectionString: serverUrl(primary, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const owner = openTeamPool(serverUrl(primary, DB));
  await migrate(owner);
  const s = suffix();
  for (const [who, role] of [
    ['a', 'support'],
    ['b', 'back_office'],
    ['c', 'support'],
    ['e', 'finance'],
    ['serve', 'receiver'],
  ] as const) {
    const login = `${who}_${s}`;
    const password = `pw-${crypto.randomBytes(9).toString('hex')}`;
    await addOperator({ pool: owner }, { login, role, password, displayName: `desk ${who}` });
    logins[who] = { login, password };
  }
  await owner.end();
  standby = await startStandby(primary);
  proxy = await startProxy(primary.port);
  serve = await startServe(
    [
      '--data-dir',
      path.join(dir, 'serve'),
      '--database',
      `postgres://${logins.serve.login}@127.0.0.1:${proxy.port}/${DB}`,
      '--listen',
      '127.0.0.1:0',
      '--no-poll',
    ],
    {
      PGPASSWORD: logins.serve.password,
      MERCHANT_DESK_SIGNING_KEY: signingKey,
      // serve gives the desks a moment to put back their own events first (ordering), then its journal.
      MERCHANT_DESK_RESTORE_WAIT_SECONDS: '1',
      MERCHANT_DESK_RECORD_CHECK_SECONDS: '0.5',
    },
  );
}, 120_000);

afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await proxy?.close();
  if (primary) stopServerSync(primary.dir, primary.binDir);
  if (standby) stopServerSync(standby.dir, standby.binDir);
  fs.rmSync(dir, { recursive: true, force: true });
});

let reader: pg.Pool;

/** Posts a signed callback to serve (answered 200: acknowledged) and returns its event key in the record. */
async function post(ref: string, status = 'COMPLETED'): Promise<string> {
  const cb = signedCallback(signingKey, { ref, status, amount: 1500.5 });
  const r = await fetch(`${serve!.base}/callbacks/collections`, { method: 'POST', body: cb.body, headers: cb.headers });
  expect(r.status).toBe(200);
  const key = await reader.query<{ event_key: string }>(
    "SELECT event_key FROM team.events WHERE merchant_reference = $1 AND source = 'callback' AND status = $2",
    [ref, status],
  );
  expect(key.rows).toHaveLength(1);
  return key.rows[0]!.event_key;
}

async function newestSeq(p: pg.Pool): Promise<number> {
  return Number((await p.query<{ m: string | null }>('SELECT max(seq) AS m FROM team.events')).rows[0]!.m ?? 0);
}

const synced = async (d: WitnessDesk, p: pg.Pool) => {
  const n = await newestSeq(p);
  return d.status().lastSeq >= n && pendingOf(d) === 0;
};

describe('an asynchronous failover that loses the last events', () => {
  it('is told apart from tampering, every event a desk or serve held comes back once, and every desk follows the new record', async () => {
    const a = witnessDesk({ url: urlFor('a'), login: logins.a.login, role: 'support', keys });
    const b = witnessDesk({ url: urlFor('b'), login: logins.b.login, role: 'back_office', keys });
    desks.push(a, b);
    a.open();
    b.open();
    reader = pool('e');

    // Before the cut: charges, callbacks, all on the standby too.
    const early = [];
    for (let i = 0; i < 4; i++) early.push(await a.charge());
    await post(early[0]!.merchantReference);
    await post(early[1]!.merchantReference, 'FAILED');
    await waitUntil(async () => (await synced(a, reader)) && (await synced(b, reader)), 15_000, 'desks synced');
    await waitReplayed(primary, standby);
    const kept = await newestSeq(reader);

    // Replication cut: what follows reaches the primary (acknowledged to everyone) but never the standby.
    await cutReplication(standby);
    const late = [];
    for (let i = 0; i < 3; i++) late.push(await a.charge());
    a.closeWindow(late[2]!);
    const lostCallbacks = [
      await post(early[2]!.merchantReference),
      await post(late[0]!.merchantReference),
      await post(late[1]!.merchantReference, 'CANCELLED'),
    ];
    await b.note(early[1]!.merchantReference, 'customer called: card declined, will retry');
    // A desk that is gone (nobody holds its word but what the others pulled): an intent and its initialize answer.
    const c = pool('c');
    const orphan = { ...newIntent({ currency: 'NGN', amountMinor: 150_050 }), operator: logins.c.login };
    await recordIntent(c, orphan);
    const unprovable: NewEvent = withTeamKey<NewEvent>({
      collectionId: null,
      merchantReference: orphan.merchantReference,
      source: 'initiate' as const,
      kind: 'initialize_accepted' as const,
      status: 'PENDING',
      receivedAt: Date.now(),
      signature: 'not_applicable' as const,
      internalReference: `INT-${orphan.merchantReference}`,
    });
    await recordEvents(c, [unprovable]);
    await waitUntil(async () => (await synced(a, reader)) && (await synced(b, reader)), 15_000, 'desks synced');
    const head = await newestSeq(reader);
    const lostKeys = (
      await reader.query<{ event_key: string; seq: string; merchant_reference: string }>(
        'SELECT event_key, seq, merchant_reference FROM team.events WHERE seq > $1 ORDER BY seq',
        [kept],
      )
    ).rows;
    expect(lostKeys.length).toBeGreaterThanOrEqual(12);
    // Both desks go away; one more callback reaches serve (acknowledged): only serve's journal holds it.
    await a.shut();
    await b.shut();
    const onlyServe = await post(late[2]!.merchantReference, 'FAILED');
    const lostByEveryone = new Set([`intent:${orphan.merchantReference}`, unprovable.dedupeKey!]);

    // The failover: the primary stops hard, the standby is promoted, the host name points at it.
    await crash(primary);
    await promote(standby);
    proxy.repoint(standby.port);
    a.open();
    b.open();

    // Every desk says the record went back, in plain words, never the tamper alarm.
    for (const d of [a, b]) {
      // Whichever it says first (the rollback, or the alarm this desk must not raise).
      await waitUntil(
        () => d.status().rollback != null || d.status().chain.broken !== null,
        20_000,
        `${d.login} to find that the record changed`,
      );
      const st = d.status();
      expect(chainWords(st.chain).alarm).toBe(false);
      expect(st.chain.broken).toBeNull();
      expect(st.rollback).toMatchObject({ lostFrom: Number(lostKeys[0]!.seq), lostTo: head });
      expect(rollbackWords(st.rollback!).text).toMatch(
        new RegExp(
          `the team database lost events ${lostKeys[0]!.seq}–${head}, probably a failover or a restore from backup; this desk holds`,
          'i',
        ),
      );
    }

    // Every event a desk or serve held is back, exactly once; what nobody held is listed on every desk.
    const newPrimary = openTeamPool(serverUrl(standby, DB));
    pools.push(newPrimary);
    const expected = [...lostKeys.map((k) => k.event_key), onlyServe].filter((k) => !lostByEveryone.has(k));
    await waitUntil(
      async () => {
        const have = await recordKeys(newPrimary);
        return expected.every((k) => have.has(k));
      },
      30_000,
      'every held event back in the record',
    );
    const have = await recordKeys(newPrimary);
    for (const k of expected) expect(have.get(k), k).toBe(1);
    for (const k of lostByEveryone) expect(have.has(k)).toBe(false);
    for (const k of lostCallbacks) expect(have.get(k)).toBe(1);
    for (const d of [a, b]) {
      await waitUntil(() => d.status().rollback?.phase === 'rebased', 20_000, `${d.login} to re-base`);
      const listed = d.status().rollback!.unrestored;
      expect(listed.map((x) => x.eventKey).sort()).toEqual([...lostByEveryone].sort());
      for (const x of listed) {
        expect(x.reference).toBe(orphan.merchantReference);
        expect(x.seq).toBe(Number(lostKeys.find((k) => k.event_key === x.eventKey)!.seq));
      }
    }
    // serve's health says what happened.
    const health = (await (await fetch(`${serve!.base}/healthz`)).json()) as { record: { message: string } };
    expect(health.record.message).toMatch(/the team database lost .*probably a failover or a restore from backup/);

    // Every desk's copy equals the new record, row for row (a desk replaying it from scratch).
    const fresh = witnessDesk({ url: urlFor('e'), login: logins.e.login, role: 'finance', keys });
    desks.push(fresh);
    fresh.open();
    const settled = async () => {
      const n = await newestSeq(newPrimary);
      return [a, b, fresh].every((d) => d.status().lastSeq >= n && pendingOf(d) === 0);
    };
    await waitUntil(settled, 20_000, 'every desk on the new record');
    const replay = copyOf(fresh.db);
    expect(copyOf(a.db)).toEqual(replay);
    expect(copyOf(b.db)).toEqual(replay);

    // And they follow it again: a new callback reaches every desk within a second.
    const next = await a.charge();
    await waitUntil(async () => (await synced(a, newPrimary)) && (await synced(b, newPrimary)), 10_000, 'the charge');
    const key = await post(next.merchantReference);
    for (const d of [a, b])
      await waitUntil(
        () => d.db.prepare('SELECT 1 FROM collection_events WHERE dedupe_key = ?').get(key) !== undefined,
        1_000,
        `${d.login} to apply the new callback`,
      );
  }, 180_000);
});
