// Issue 29: the team record goes back in time when an asynchronous standby is promoted after the primary
// committed events it never sent. Against real servers on loopback: a primary and its streaming standby
// (asynchronous), replication cut on purpose, the primary stopped hard, the standby promoted, and the one
// host name the desks and serve use (a TCP endpoint) repointed at it. Then every desk says the record
// lost events (not that someone altered it), the witnesses (each desk, and serve's journal) put back
// every event they held, exactly once, what nobody could prove or re-send is listed, and every desk's
// copy equals the new record row for row and follows it again.
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainWords, rollbackWords } from '../../main/team/chain-words.shared.js';
import { openTeamPool } from '../../main/team/pool.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { recordEvents, recordIntent, withTeamKey } from '../../main/team/record.js';
import { serverUrl } from '../support/postgres-server.js';
import { crash, cutReplication, promote, waitReplayed } from '../support/pg-replication.js';
import { fileTempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';
import { startServe, type Serve } from '../serve/harness.js';
import { newIntent } from './sync-desk.js';
import { recordKeys } from './witness-desk.js';
import {
  expectFollowing,
  expectReplayed,
  FAILOVER_DB,
  failoverTeam,
  newestSeq,
  postCallback,
  synced,
} from './rollback-team.js';

let team: Awaited<ReturnType<typeof failoverTeam<'a' | 'b' | 'c' | 'e' | 'serve'>>>;
let serve: Serve | undefined;

beforeAll(async () => {
  const dir = fileTempDir('md-failover-');
  team = await failoverTeam({ a: 'support', b: 'back_office', c: 'support', e: 'finance', serve: 'receiver' });
  serve = await startServe(
    [
      '--data-dir',
      path.join(dir, 'serve'),
      '--database',
      `postgres://${team.logins.serve.login}@127.0.0.1:${team.proxy.port}/${FAILOVER_DB}`,
      '--listen',
      '127.0.0.1:0',
      '--no-poll',
    ],
    {
      PGPASSWORD: team.logins.serve.password,
      MERCHANT_DESK_SIGNING_KEY: team.keys.signingKey,
      // serve gives the desks a moment to put back their own events first (ordering), then its journal.
      MERCHANT_DESK_RESTORE_WAIT_SECONDS: '1',
      MERCHANT_DESK_RECORD_CHECK_SECONDS: '0.5',
    },
  );
}, 120_000);

afterAll(async () => {
  await team?.close(() => {
    if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  });
});

let reader: pg.Pool;

/** Posts a signed callback to serve (answered 200: acknowledged) and returns its event key in the record. */
async function post(ref: string, status = 'COMPLETED'): Promise<string> {
  const keys = await postCallback(`${serve!.base}/callbacks/collections`, team.keys.signingKey, reader, ref, status);
  expect(keys).toHaveLength(1);
  return keys[0]!;
}

describe('an asynchronous failover that loses the last events', () => {
  it('is told apart from tampering, every event a desk or serve held comes back once, and every desk follows the new record', async () => {
    const a = team.desk('a');
    const b = team.desk('b');
    a.open();
    b.open();
    reader = team.pool('e');

    // Before the cut: charges, callbacks, all on the standby too.
    const early = [];
    for (let i = 0; i < 4; i++) early.push(await a.charge());
    await post(early[0]!.merchantReference);
    await post(early[1]!.merchantReference, 'FAILED');
    await until('desks synced', () => synced(reader, a, b), 15_000);
    await waitReplayed(team.primary, team.standby);
    const kept = await newestSeq(reader);

    // Replication cut: what follows reaches the primary (acknowledged to everyone) but never the standby.
    await cutReplication(team.standby);
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
    const c = team.pool('c');
    const orphan = { ...newIntent({ currency: 'NGN', amountMinor: 150_050 }), operator: team.logins.c.login };
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
    await until('desks synced', () => synced(reader, a, b), 15_000);
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
    await crash(team.primary);
    await promote(team.standby);
    team.proxy.repoint(team.standby.port);
    a.open();
    b.open();

    // Every desk says the record went back, in plain words, never the tamper alarm.
    for (const d of [a, b]) {
      // Whichever it says first (the rollback, or the alarm this desk must not raise).
      await until(
        `${d.login} to find that the record changed`,
        () => d.status().rollback != null || d.status().chain.broken !== null,
        20_000,
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
    const newPrimary = team.keep(openTeamPool(serverUrl(team.standby, FAILOVER_DB)));
    const expected = [...lostKeys.map((k) => k.event_key), onlyServe].filter((k) => !lostByEveryone.has(k));
    await until(
      'every held event back in the record',
      async () => {
        const have = await recordKeys(newPrimary);
        return expected.every((k) => have.has(k));
      },
      30_000,
    );
    const have = await recordKeys(newPrimary);
    for (const k of expected) expect(have.get(k), k).toBe(1);
    for (const k of lostByEveryone) expect(have.has(k)).toBe(false);
    for (const k of lostCallbacks) expect(have.get(k)).toBe(1);
    for (const d of [a, b]) {
      await until(`${d.login} to re-base`, () => d.status().rollback?.phase === 'rebased', 20_000);
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
    const fresh = team.desk('e');
    fresh.open();
    await expectReplayed(newPrimary, fresh, a, b);

    // And they follow it again: a new callback reaches every desk within a second.
    await expectFollowing(newPrimary, post, a, b);
  }, 180_000);
});
