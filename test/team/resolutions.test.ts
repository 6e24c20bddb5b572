// One decision per exception, on a real PostgreSQL with several desks (issue 28, problems 3 and 6): two
// back-office desks resolving the same exception, or the same orphan callback, at the same moment get
// one resolution in the team record; the other desk is told who resolved it, when and their note, and
// both desks then show that one. "Latest" is the team's seq on every desk, not a desk's local id. The
// database refuses a person's row that carries a status; one an older record holds moves no status on
// any desk, pulled, replayed or taken from a snapshot, and is flagged.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { migrate } from '../../main/team/migrate.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { recordEvents, recordTeamFirst, withTeamKey } from '../../main/team/record.js';
import { ResolutionTakenError } from '../../main/team/resolutions.js';
import { publishSnapshot } from '../../main/team/snapshot/publish.js';
import { restoreEvents } from '../../main/store/pg/rollback.js';
import { getDetail, listOrphanCallbacks, prepareResolution, resolveException } from '../../main/reconcile/index.js';
import { resolve, type ResolveDeps } from '../../main/operations/resolve.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import {
  callbackEvent,
  chargeOn,
  collectionView,
  eventsView,
  newIntent,
  openDesk,
  quietLogger,
  reconciliationView,
  type Desk,
} from './sync-desk.js';
import { startTeamSync } from '../../main/team/sync/pull.js';
import { systemClock } from '../../main/clock.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let team: TeamFixture;
let support: string;
let kofi: string;
let amina: string;
const desks: Desk[] = [];

beforeAll(async () => {
  team = await teamFixture();
  support = await team.addOperator('support', 'sam');
  kofi = await team.addOperator('back_office', 'kofi');
  amina = await team.addOperator('back_office', 'amina');
});
afterEach(async () => {
  await Promise.all(desks.splice(0).map((d) => d.close()));
});
afterAll(async () => {
  await team?.close();
});

function desk(pool: pg.Pool, over: Parameters<typeof openDesk>[1] = {}): Desk {
  const d = openDesk(pool, over);
  desks.push(d);
  return d;
}

const idOf = (d: Desk, ref: string) =>
  d.db.prepare('SELECT id FROM collections WHERE merchant_reference = ?').pluck().get(ref) as number;

const manualEvents = (d: Desk, ref: string) =>
  d.db
    .prepare("SELECT actor, note FROM collection_events WHERE merchant_reference = ? AND source = 'manual'")
    .all(ref) as { actor: string; note: string }[];

/** A desk's way of resolving, as the app composes it (operations/resolve.ts), signed in as `login`. */
function as(d: Desk, login: string): ResolveDeps {
  return {
    db: d.db,
    ledger,
    reconcileOptions: {},
    operatorName: '',
    team: {
      login,
      recordFirst: (evs) => recordTeamFirst(d.pool, evs),
      pullNow: () => void d.sync.pullNow().catch(() => undefined),
    },
  };
}

/** What the team record holds of a reference's resolutions. */
async function resolutionsOf(ref: string) {
  return (
    await team.owner.query<{ actor: string; note: string; occurred_at: Date }>(
      "SELECT actor, note, occurred_at FROM team.events WHERE merchant_reference = $1 AND source = 'manual' ORDER BY seq",
      [ref],
    )
  ).rows;
}

/** A charge whose callbacks disagree (the service changed its final answer): an exception on every desk. */
async function exception(s: Desk) {
  const { intent } = await chargeOn(s);
  await appendEvents(team.owner, [callbackEvent(intent, 'COMPLETED'), callbackEvent(intent, 'FAILED')]);
  return intent;
}

/** A signed callback, as serve stores it, for a reference no desk ever charged. */
function orphanCallback(): NewTeamEvent {
  const ghost = newIntent({
    merchantReference: `MD-ORPHAN-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`,
  });
  return callbackEvent(ghost, 'COMPLETED');
}

describe('one decision per exception', () => {
  it('two back-office desks resolve one exception at the same moment: one resolution stands, the other desk is told who, when and their note, and both then show it', async () => {
    const s = desk(team.signIn(support));
    const a = desk(team.signIn(kofi));
    const b = desk(team.signIn(amina));
    const intent = await exception(s);
    const ref = intent.merchantReference;
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    for (const d of [a, b]) expect(getDetail(d.db, idOf(d, ref)).reconciliation?.isException).toBe(true);

    const notes: Record<string, string> = {
      [kofi]: 'The issuer reversed it; the customer was told.',
      [amina]: 'The customer paid the difference in cash.',
    };
    // Both desks checked "open" on their own copies before either was recorded.
    const results = await Promise.allSettled([
      resolve(as(a, kofi), { collectionId: idOf(a, ref), note: notes[kofi]! }),
      resolve(as(b, amina), { collectionId: idOf(b, ref), note: notes[amina]! }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const winner = results[0]!.status === 'fulfilled' ? kofi : amina;
    const [loserDesk, winnerDesk] = winner === kofi ? [b, a] : [a, b];
    const stood = await resolutionsOf(ref);
    expect(stood).toEqual([{ actor: winner, note: notes[winner], occurred_at: expect.any(Date) }]);

    // The other desk is told who, when and their note; it stored nothing of its own.
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ kind: 'conflict', field: 'collectionId' });
    expect(refused.reason.message).toMatch(
      new RegExp(
        `^${winner} already resolved ${ref} at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d: "${notes[winner]!.replace(/[.;]/g, '\\$&')}"`,
      ),
    );
    // (it pulls at once, so it may hold the standing one already: nothing of its own)
    expect(manualEvents(loserDesk, ref).filter((e) => e.actor !== winner)).toEqual([]);

    // Afterwards both desks show the same resolver, time and note, and no open exception.
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    for (const d of [winnerDesk, loserDesk]) {
      const detail = getDetail(d.db, idOf(d, ref));
      expect(detail.resolution).toMatchObject({
        by: winner,
        at: stood[0]!.occurred_at.toISOString(),
        note: notes[winner],
      });
      expect(detail.reconciliation).toMatchObject({ isException: false, resolutionNote: notes[winner] });
      expect(manualEvents(d, ref)).toEqual([{ actor: winner, note: notes[winner] }]);
    }
  });

  it("a desk that already pulled the other's resolution when its person presses Resolve is told who resolved it, when and their note", async () => {
    // Found by the e2e race (team-resolve.spec.ts): the losing desk's own copy had the winner's resolution
    // before its check ran, and it said only "no open exception to resolve".
    const s = desk(team.signIn(support));
    const a = desk(team.signIn(kofi));
    const b = desk(team.signIn(amina));
    const ref = (await exception(s)).merchantReference;
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    const id = idOf(b, ref);
    await resolve(as(a, kofi), { collectionId: idOf(a, ref), note: 'Refunded by the issuer.' });
    await b.sync.pullNow();
    await expect(resolve(as(b, amina), { collectionId: id, note: 'Customer paid the rest.' })).rejects.toMatchObject({
      kind: 'conflict',
      field: 'collectionId',
      message: expect.stringMatching(
        new RegExp(
          `^${kofi} already resolved ${ref} at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d: "Refunded by the issuer\\."`,
        ),
      ),
    });
    expect(await resolutionsOf(ref)).toEqual([
      { actor: kofi, note: 'Refunded by the issuer.', occurred_at: expect.any(Date) },
    ]);
  });

  it("a refusal whose standing resolution cannot be read (the line cut just then) is still told as already resolved, never in the database's words", async () => {
    // Found by the team day (seed 4, a desk's line cut for 102 ms as it resolved): the read of who resolved
    // it failed, and the person was shown "could not append events: merchant_reference: … was already
    // resolved (seq 242) …", an error of kind "refused" the screen has no words for.
    const s = desk(team.signIn(support));
    const a = desk(team.signIn(kofi));
    const b = desk(team.signIn(amina));
    const ref = (await exception(s)).merchantReference;
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    // b's copy does not get kofi's resolution (its sync stopped): its check finds the exception open.
    await b.sync.close();
    await resolve(as(a, kofi), { collectionId: idOf(a, ref), note: 'Refunded by the issuer.' });
    // b's line goes down the moment the database has refused its resolution (a fault injected there).
    let down = false;
    const cut = new Proxy(b.pool, {
      get(target, key) {
        if (key !== 'query') return Reflect.get(target, key) as unknown;
        return async (...args: Parameters<pg.Pool['query']>) => {
          if (down) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
          try {
            return await (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
          } catch (e) {
            down = true;
            throw e;
          }
        };
      },
    });
    const deps = as(b, amina);
    const refused = await resolve(
      { ...deps, team: { ...deps.team!, recordFirst: (evs) => recordTeamFirst(cut, evs) } },
      { collectionId: idOf(b, ref), note: 'Customer paid the rest.' },
    ).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'conflict', field: 'collectionId' });
    const message = (refused as Error).message;
    expect(message).toMatch(new RegExp(`^${ref} was already resolved at another desk`));
    expect(message).not.toMatch(/seq|append events|merchant_reference/);
    expect(manualEvents(b, ref).filter((e) => e.actor === amina)).toEqual([]);
  });

  it('two back-office desks resolve one orphan callback at the same moment: one resolution stands, on both desks', async () => {
    const a = desk(team.signIn(kofi));
    const b = desk(team.signIn(amina));
    const cb = orphanCallback();
    await appendEvents(team.owner, [cb]);
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    const orphanOf = (d: Desk) =>
      listOrphanCallbacks(d.db).rows.find((o) => o.merchantReference === cb.merchantReference)!.eventId;
    const ids = new Map([
      [a, orphanOf(a)],
      [b, orphanOf(b)],
    ]);
    const results = await Promise.allSettled([
      resolve(as(a, kofi), { orphanEventId: ids.get(a)!, note: 'Not ours: a test payment of the service.' }),
      resolve(as(b, amina), { orphanEventId: ids.get(b)!, note: 'Belongs to the other shop; told them.' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ kind: 'conflict', field: 'orphanEventId' });
    const stood = await resolutionsOf(cb.merchantReference);
    expect(stood).toHaveLength(1);
    expect(refused.reason.message).toContain(`${stood[0]!.actor} already resolved ${cb.merchantReference}`);
    expect(refused.reason.message).toContain(`"${stood[0]!.note}"`);

    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    for (const d of [a, b]) {
      const o = listOrphanCallbacks(d.db, { eventId: ids.get(d)! }).rows[0]!;
      expect(o).toMatchObject({
        resolvedBy: stood[0]!.actor,
        resolvedAt: stood[0]!.occurred_at.toISOString(),
        resolutionNote: stood[0]!.note,
      });
      expect(listOrphanCallbacks(d.db).rows.map((x) => x.merchantReference)).not.toContain(cb.merchantReference);
    }
  });

  it("takes 'latest' from the team's seq: a desk's own resolution, stored before it pulled an earlier one, is the latest on every desk", async () => {
    const s = desk(team.signIn(support));
    const a = desk(team.signIn(kofi));
    const b = desk(team.signIn(amina));
    const intent = await exception(s);
    const ref = intent.merchantReference;
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);

    /** A desk resolves as the app always did: the team record first, then its own copy under the same key. */
    const resolveOn = async (d: Desk, actor: string, note: string) => {
      const input = { collectionId: idOf(d, ref), note, actor };
      const keyed = withTeamKey(prepareResolution(d.db, input));
      await recordEvents(d.pool, [keyed]);
      resolveException(ledger, d.db, { ...input, dedupeKey: keyed.dedupeKey! });
    };
    // amina resolves; kofi's desk has not pulled it (its sync is stopped) when the service changes its
    // answer once more...
    await a.sync.close();
    await resolveOn(b, amina, 'First look: reversed by the issuer.');
    await appendEvents(team.owner, [callbackEvent(intent, 'CANCELLED')]);
    // ... and kofi, whose copy has neither, resolves too: something happened since amina's, so it stands.
    await resolveOn(a, kofi, 'Second look: the service cancelled it; nothing was taken.');
    expect((await resolutionsOf(ref)).map((r) => r.actor)).toEqual([amina, kofi]);

    // kofi's desk stored its own resolution before amina's and the cancel (lower local ids), amina's desk
    // after them: both show kofi's as the one that stands, and the cancel covered by it.
    const resumed = startTeamSync({ pool: a.pool, db: a.db, ledger, clock: systemClock, logger: quietLogger });
    try {
      await Promise.all([resumed.pullNow(), b.sync.pullNow()]);
    } finally {
      await resumed.close();
    }
    for (const d of [a, b]) {
      const detail = getDetail(d.db, idOf(d, ref));
      expect(detail.reconciliation).toMatchObject({
        isException: false,
        resolutionNote: 'Second look: the service cancelled it; nothing was taken.',
      });
      expect(detail.resolution).toMatchObject({ by: kofi });
    }
    const order = (d: Desk) => getDetail(d.db, idOf(d, ref)).events.map((e) => [e.source, e.status, e.note]);
    expect(order(a)).toEqual(order(b));
    expect(reconciliationView(a.db).find((r) => r.merchant_reference === ref)).toEqual(
      reconciliationView(b.db).find((r) => r.merchant_reference === ref),
    );
  });
});

describe('the team database decides', () => {
  const resolution = (ref: string, note: string, over: Partial<NewTeamEvent> = {}): NewTeamEvent => ({
    eventKey: `resolution:${ref}:${note}`,
    merchantReference: ref,
    source: 'manual',
    kind: 'resolution',
    signature: 'not_applicable',
    note,
    occurredAt: Date.now(),
    ...over,
  });

  it('refuses a second resolution of a reference nothing happened to since, and takes one again after something did', async () => {
    const bo = team.signIn(kofi);
    const cb = orphanCallback();
    const ref = cb.merchantReference;
    await appendEvents(team.owner, [cb]);
    await appendEvents(bo, [resolution(ref, 'first')]);
    await expect(appendEvents(team.signIn(amina), [resolution(ref, 'second')])).rejects.toThrow(
      /already resolved .* nothing happened to it since/,
    );
    // Through the desks' write, the refusal names the standing resolution.
    const refused = await recordEvents(team.signIn(amina), [withTeamKey(resolutionEventOf(ref, 'second'))]).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ResolutionTakenError);
    expect((refused as ResolutionTakenError).standing).toMatchObject({
      merchantReference: ref,
      resolvedBy: kofi,
      note: 'first',
    });
    // Two in one statement: the second is refused, and so nothing of it is stored.
    await appendEvents(team.owner, [{ ...cb, eventKey: `${cb.eventKey}:again` }]);
    await expect(appendEvents(bo, [resolution(ref, 'third'), resolution(ref, 'fourth')])).rejects.toThrow(
      /already resolved/,
    );
    // After something new, one resolution again.
    await appendEvents(bo, [resolution(ref, 'third')]);
    expect((await resolutionsOf(ref)).map((r) => r.note)).toEqual(['first', 'third']);
  });

  it('lets a witness put back a resolution the record lost (team.restore_events), even right after another one', async () => {
    const cb = orphanCallback();
    const ref = cb.merchantReference;
    await appendEvents(team.owner, [cb]);
    await appendEvents(team.signIn(kofi), [resolution(ref, 'after the rollback')]);
    // amina's desk witnessed her resolution before the record went back in time: it was decided then.
    const lost = resolution(ref, 'before the rollback');
    const restored = await restoreEvents(team.signIn(amina), [
      {
        event_key: lost.eventKey,
        merchant_reference: ref,
        internal_reference: null,
        source: 'manual',
        kind: 'resolution',
        status: null,
        amount_minor: null,
        currency: null,
        signature: 'not_applicable',
        payload: null,
        note: lost.note!,
        payment_url: null,
        status_message: null,
        occurred_at: new Date(lost.occurredAt).toISOString(),
        evidence: null,
        lost_seq: 7,
        lost_recorded_at: lost.occurredAt,
        lost_actor: amina,
      },
    ]);
    expect(restored.map((r) => r.outcome)).toEqual(['restored']);
    // A resolution of one's own with a mark of one's own making is no restoration: refused as any other.
    await expect(
      appendEvents(team.signIn(amina), [resolution(ref, 'again', { evidence: '{"restored": {"by": "me"}}' })]),
    ).rejects.toThrow();
  });

  it('accepts a resolution only at READ COMMITTED, where the check sees every resolution committed before it', async () => {
    const cb = orphanCallback();
    await appendEvents(team.owner, [cb]);
    const client = await team.signIn(kofi).connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await expect(appendEvents(client, [resolution(cb.merchantReference, 'in a snapshot')])).rejects.toThrow(
        /only in a READ COMMITTED transaction/,
      );
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await resolutionsOf(cb.merchantReference)).toEqual([]);
  });

  it("refuses a back office login's row that carries a status: a resolution or a person's status settles nothing", async () => {
    const s = desk(team.signIn(support));
    const { intent } = await chargeOn(s);
    const bo = team.signIn(kofi);
    const ref = intent.merchantReference;
    for (const sql of [
      `INSERT INTO team.events (event_key, merchant_reference, source, kind, status, signature, note, occurred_at)
       VALUES ($1, $2, 'manual', 'resolution', 'COMPLETED', 'not_applicable', 'paid, the bank says', now())`,
      `INSERT INTO team.events (event_key, merchant_reference, source, kind, status, signature, note, occurred_at)
       VALUES ($1, $2, 'manual', 'manual_status', 'COMPLETED', 'not_applicable', 'paid, the bank says', now())`,
    ])
      await expect(bo.query(sql, [`forged:${ref}:${sql.length}`, ref])).rejects.toThrow(
        /violates check constraint "events_manual_carries_no_status"/,
      );
    expect(await resolutionsOf(ref)).toEqual([]);
    // Through the desks' write it says which field, in words.
    await expect(appendEvents(bo, [resolution(ref, 'paid', { status: 'COMPLETED' })])).rejects.toMatchObject({
      field: 'status',
      message: expect.stringMatching(/^status: a person's event .* carries no status/),
    });
  });
});

/** A resolution as a desk makes it (the note and who), for the reference of an orphan. */
function resolutionEventOf(ref: string, note: string) {
  return {
    collectionId: null,
    merchantReference: ref,
    internalReference: null,
    source: 'manual' as const,
    kind: 'resolution' as const,
    status: null,
    receivedAt: Date.now(),
    signature: 'not_applicable' as const,
    note,
  };
}

describe('a status from an older record', () => {
  let old: TeamFixture;
  afterAll(async () => {
    await old?.close();
  });

  it('moves nothing and is flagged on every desk, pulled, replayed or taken from a snapshot alike', async () => {
    // A record from before team migration 13, when a back office login could write a status.
    old = await teamFixture({ migrations: teamMigrations.filter((m) => m.version < 13) });
    const bo = old.signIn(await old.addOperator('back_office', 'kofi'));
    const keys = { signingKey: null, servicePublicKey: null };
    const evidenceKeys = () => keys;
    const charging = desk(old.signIn(await old.addOperator('support', 'sam')), { evidenceKeys });
    const [byResolution, byStatus] = [newIntent(), newIntent()];
    for (const intent of [byResolution, byStatus]) await chargeOn(charging, intent);
    const early = desk(bo, { evidenceKeys });
    await early.sync.pullNow();
    for (const [intent, kind] of [
      [byResolution, 'resolution'],
      [byStatus, 'manual_status'],
    ] as const)
      await bo.query(
        `INSERT INTO team.events (event_key, merchant_reference, source, kind, status, signature, note, occurred_at)
         VALUES ($1, $2, 'manual', $3, 'COMPLETED', 'not_applicable', 'paid, the bank says', now())`,
        [`manual:${intent.merchantReference}`, intent.merchantReference, kind],
      );
    await migrate(old.owner);
    // The record keeps what it held; a new one is refused.
    await expect(
      bo.query(
        `INSERT INTO team.events (event_key, merchant_reference, source, kind, status, signature, occurred_at)
         VALUES ('manual:again', $1, 'manual', 'resolution', 'COMPLETED', 'not_applicable', now())`,
        [byResolution.merchantReference],
      ),
    ).rejects.toThrow(/events_manual_carries_no_status/);

    // Pulled by a desk that was there before, replayed by a new desk, and taken from a snapshot by another.
    await early.sync.pullNow();
    const replay = desk(bo, { evidenceKeys, snapshots: false });
    await replay.sync.pullNow();
    await publishSnapshot({ pool: bo, now: () => Date.now(), keys });
    let from: string | null = null;
    const fromSnapshot = desk(bo, {
      evidenceKeys,
      onCopied: (_n, f) => {
        from = f;
      },
    });
    await fromSnapshot.sync.pullNow();
    expect(from).toBe('snapshot');

    for (const d of [early, replay, fromSnapshot]) {
      for (const intent of [byResolution, byStatus]) {
        const ref = intent.merchantReference;
        const row = collectionView(d.db, ref)!;
        expect(row.status).toBe('PENDING');
        expect((row.flags as number) & 8).toBe(8); // BAD_SIGNATURE
        const forged = eventsView(d.db, ref).find((e) => e.status === 'COMPLETED')!;
        expect(forged).toMatchObject({ kind: 'bad_signature', signature: 'invalid' });
        expect(forged.note).toMatch(
          /^paid, the bank says; not verified by this desk: a (resolution|status recorded by a person) is not signed by the service and cannot give a payment a status \(COMPLETED\); its status is ignored$/,
        );
        const detail = getDetail(d.db, idOf(d, ref));
        expect(detail.reconciliation).toMatchObject({ isException: true });
        expect(detail.reconciliation?.openKinds).toContain('bad_signature');
        expect(detail.resolution).toBeNull();
      }
    }
    // Every desk the same, row for row.
    for (const d of [replay, fromSnapshot]) {
      expect(reconciliationView(d.db)).toEqual(reconciliationView(early.db));
      for (const intent of [byResolution, byStatus]) {
        expect(collectionView(d.db, intent.merchantReference)).toEqual(
          collectionView(early.db, intent.merchantReference),
        );
        expect(eventsView(d.db, intent.merchantReference)).toEqual(eventsView(early.db, intent.merchantReference));
      }
    }
  });
});
