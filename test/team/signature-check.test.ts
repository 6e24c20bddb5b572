// A new desk shows its copy before it has re-checked every old signature (issue 20), against a real
// PostgreSQL: it starts from the team's snapshot with the snapshot's verdicts on signed events (every
// row and the hash chain still checked first), says so on each collection resting on one ("signature
// being checked", list and detail), reconciles nothing meanwhile (nothing counts as matched), and
// re-checks the signatures in the background: a verdict it does not share (a publisher that took a
// writer's "verified") ends as today's unverified path makes it, an exception; the desk then holds
// exactly what a desk that replayed the record with its own checks holds.
import crypto from 'node:crypto';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { appendEvents } from '../../main/team/events.js';
import { recordIntent, type TeamIntent } from '../../main/team/record.js';
import { publishSnapshot } from '../../main/team/snapshot/publish.js';
import { startTeamSync, type TeamSyncOptions, type TeamSyncStatus } from '../../main/team/sync/pull.js';
import { runSignatureCheck, signatureCheckProgress } from '../../main/team/sync/signature-check.js';
import { snapshotStart } from '../../main/team/snapshot/start.js';
import { getCollection, listCollections } from '../../main/collections/query.js';
import { verifyCallback } from '../../main/callbacks/ingest.js';
import { teamCallbackStore } from '../../main/serve/team-callback-store.js';
import { statusFrom } from '../../main/app/status.js';
import type { SignatureKeys } from '../../main/service/verify-callback.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';
import { record } from './new-desk.js';
import { newIntent, quietLogger } from './sync-desk.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

let team: TeamFixture;
let support: pg.Pool;
let backOffice: string;
let backOfficePool: pg.Pool;
let publisher: pg.Pool;
const dbs: Db[] = [];

beforeAll(async () => {
  team = await teamFixture();
  support = team.signIn(await team.addOperator('support', 'sam'));
  backOffice = await team.addOperator('back_office', 'bo');
  backOfficePool = team.signIn(backOffice);
  publisher = team.signIn(await team.addOperator('back_office', 'nightly'));
});
afterAll(async () => {
  for (const db of dbs) db.close();
  await team?.close();
});

const service = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const servicePem = service.publicKey.export({ type: 'spki', format: 'pem' }).toString();
// The signing key too: the HMAC check, as the bench desk (an RSA-only desk checks the same way, slower).
const deskKeys: SignatureKeys = { servicePublicKey: servicePem, signingKey: SIGNING_KEY };
const evidenceKeys = () => deskKeys;

function signedCallback(reference: string, status: string) {
  const body = callbackBody(reference, status);
  const p = body.payload;
  const signed = [body.event, p.merchant_reference, p.internal_reference, p.transaction_type, p.transaction_status];
  const rsa = crypto.sign('sha512', Buffer.from(signed.join(':')), service.privateKey).toString('base64');
  return { body: JSON.stringify(body), headers: { 'hmac-signature': hmacHeader(body), 'rsa-signature': rsa } };
}

async function charged(intent: TeamIntent = newIntent({ currency: 'UGX' })): Promise<string> {
  const ref = intent.merchantReference;
  await recordIntent(support, intent);
  await appendEvents(support, [
    event({
      merchantReference: ref,
      eventKey: `init:${ref}`,
      currency: intent.currency,
      amountMinor: intent.amountMinor,
    }),
  ]);
  return ref;
}

function deskFile(): string {
  const dir = fileTempDir('md-sigcheck-');
  return path.join(dir, 'desk.sqlite');
}

function collection(db: Db, reference: string) {
  const got = getCollection(db, reference)!;
  return {
    status: got.collection.status,
    flags: got.collection.flags,
    checking: got.collection.signatureBeingChecked,
    callback: got.events.find((e) => e.source === 'callback')!,
    reconciliation: db
      .prepare(
        `SELECT r.outcome, r.is_exception, r.open_kinds FROM reconciliation r JOIN collections c ON c.id = r.collection_id
         WHERE c.merchant_reference = ?`,
      )
      .get(reference) as { outcome: string; is_exception: number; open_kinds: string } | undefined,
  };
}

describe('a new desk started from the team snapshot, before it re-checked the signatures', () => {
  it("shows its copy at once, says so on each collection resting on an unchecked signature and counts none as matched; the background re-check then settles each by this desk's own verdict", async () => {
    // A genuine callback, stored by serve with its evidence.
    const genuineIntent = newIntent({ currency: 'UGX' });
    const genuine = genuineIntent.merchantReference;
    const real = signedCallback(genuine, 'COMPLETED');
    const parsed = verifyCallback({ body: real.body, headers: real.headers, source: 'callback' }, deskKeys);
    if (parsed.result !== 'verified') throw new Error('the test callback does not verify');
    await charged({ ...genuineIntent, amountMinor: parsed.callback.amountMinor! });
    const receiver = team.signIn(await team.addOperator('receiver', 'serve'));
    const stored = await teamCallbackStore(receiver).commitGroup(
      [{ input: { body: Buffer.from(real.body), headers: real.headers, source: 'callback' }, now: Date.now() }],
      deskKeys,
    );
    expect(stored[0]!.result).toBe('imported');
    // back_office writes a "verified" COMPLETED callback with nothing to check it by.
    const forged = await charged();
    await backOfficePool.query(
      `INSERT INTO team.events (event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
         signature, payload, occurred_at)
       VALUES ($1, $2, $3, 'callback', 'outcome', 'COMPLETED', 1500000, 'UGX', 'verified', '{}', now())`,
      [`callback:${forged}:forged`, forged, `INT-${forged}`],
    );
    const untouched = await charged();

    // A publisher that took the writers' word (no keys): its snapshot says both callbacks verified.
    await publishSnapshot({ pool: publisher, now: () => Date.now(), scratchDir: path.dirname(deskFile()) });

    const db = openDatabase(deskFile());
    dbs.push(db);
    let atStart: Record<string, unknown> | null = null;
    const seen: TeamSyncStatus['signatures'][] = [];
    const sync = startTeamSync({
      pool: team.owner,
      db,
      ledger,
      clock: systemClock,
      logger: quietLogger,
      pollEveryMs: 600_000,
      evidenceKeys,
      // Told as soon as the copy is shown, before the re-check begins.
      onCopied: (_n, from) => {
        atStart = {
          from,
          forged: collection(db, forged),
          genuine: collection(db, genuine),
          untouched: collection(db, untouched),
          listed: listCollections(db, {}).rows.map((r) => [r.merchantReference, r.signatureBeingChecked]),
          reconciled: db.prepare('SELECT count(*) FROM reconciliation').pluck().get(),
          progress: signatureCheckProgress(db),
        };
      },
    } satisfies TeamSyncOptions);
    sync.onStatus((s) => seen.push(s.signatures));
    try {
      await sync.pullNow();
      expect(atStart).toMatchObject({
        from: 'snapshot',
        // As the snapshot says, and saying that it rests on a signature not checked yet.
        forged: {
          status: 'COMPLETED',
          checking: true,
          callback: { signature: 'verified', signatureBeingChecked: true },
        },
        genuine: {
          status: 'COMPLETED',
          checking: true,
          callback: { signature: 'verified', signatureBeingChecked: true },
        },
        // No signed event: nothing to wait for.
        untouched: { status: 'PENDING', checking: false },
        // Nothing counts as matched (or anything else) before the signatures are checked.
        reconciled: 0,
        progress: { checked: 0, total: 2, failed: 0 },
      });
      expect(new Map(atStart!.listed as [string, boolean][])).toEqual(
        new Map([
          [genuine, true],
          [forged, true],
          [untouched, false],
        ]),
      );

      await sync.checkSignatures();
      const f = collection(db, forged);
      expect(f).toMatchObject({
        status: 'PENDING',
        checking: false,
        callback: { signature: 'missing', actor: backOffice },
      });
      expect(f.callback.note).toMatch(/^not verified by this desk: no evidence was kept with it/);
      expect(f.flags).toContain('bad_signature');
      expect(f.reconciliation).toMatchObject({ is_exception: 1 });
      expect(f.reconciliation!.open_kinds).toContain('bad_signature');
      expect(collection(db, genuine)).toMatchObject({
        status: 'COMPLETED',
        checking: false,
        callback: { signature: 'verified', note: null, signatureBeingChecked: false },
        reconciliation: { outcome: 'matched', is_exception: 0 },
      });
      expect(signatureCheckProgress(db)).toBeNull();
      expect(sync.status().signatures).toBeNull();
      expect(seen).toContainEqual({ checked: 2, total: 2, failed: 1 });
      // What the status bar said meanwhile.
      expect(
        statusFrom({
          profile: 'team',
          keychain: 'available',
          started: true,
          sandboxRunning: false,
          startError: null,
          connection: { ok: true },
          poller: null,
          lastSuccessFromLog: null,
          team: {
            login: 'x',
            role: 'support',
            signedIn: true,
            online: true,
            lastSyncAt: 1,
            reached: true,
            error: null,
            signatures: { checked: 1, total: 2, failed: 1 },
          },
        }).message,
      ).toBe('Checking signatures: 1 of 2 (1 did not verify)');
    } finally {
      await sync.close();
    }

    // The same as a desk that replayed the record checking every signature first, row for row.
    const replayDb = openDatabase(deskFile());
    dbs.push(replayDb);
    const replay = startTeamSync({
      pool: team.owner,
      db: replayDb,
      ledger,
      clock: systemClock,
      logger: quietLogger,
      pollEveryMs: 600_000,
      evidenceKeys,
      snapshots: false,
    });
    await replay.pullNow();
    await replay.close();
    const strip = (r: ReturnType<typeof record>) => ({
      ...r,
      reconciliation: r.reconciliation.map((x) => ({ ...(x as object), stale_at: null })),
    });
    expect(strip(record(db))).toEqual(strip(record(replayDb)));
  });

  it('resumes after a stop where the last page it committed ended, and only then reconciles', async () => {
    const db = openDatabase(deskFile());
    dbs.push(db);
    const started = await snapshotStart({ pool: team.owner, db, ledger, now: () => Date.now(), keys: evidenceKeys });
    expect(started).toMatchObject({ started: true, signaturesToCheck: 2 });
    // An event this desk stores meanwhile on a collection resting on an unchecked signature: not reconciled yet.
    const genuine = db
      .prepare(
        "SELECT collection_id FROM collection_events WHERE source = 'callback' AND dedupe_key NOT LIKE '%:forged'",
      )
      .pluck()
      .get() as number;
    const reference = db
      .prepare('SELECT merchant_reference FROM collections WHERE id = ?')
      .pluck()
      .get(genuine) as string;
    ledger.append(db, {
      collectionId: genuine,
      merchantReference: reference,
      source: 'manual',
      kind: 'resolution',
      receivedAt: Date.now(),
      signature: 'not_applicable',
      note: 'looked at it',
      actor: 'someone',
    });
    expect(db.prepare('SELECT count(*) FROM reconciliation').pluck().get()).toBe(0);
    let pages = 0;
    const stoppedAfterOne = await runSignatureCheck({
      pool: team.owner,
      db,
      ledger,
      now: () => Date.now(),
      keys: evidenceKeys,
      page: 3,
      onProgress: () => void pages++,
      stopped: () => pages >= 3, // the start's report, then two pages
    });
    expect(stoppedAfterOne).toBe('stopped');
    const kept = db.prepare('SELECT checked_event_id, checked_seq FROM team_signature_check').get() as {
      checked_event_id: number;
      checked_seq: number;
    };
    expect(kept.checked_event_id).toBe(6);
    expect(kept.checked_seq).toBeGreaterThanOrEqual(6);
    expect(db.prepare('SELECT count(*) FROM reconciliation').pluck().get()).toBe(0);

    // As after a restart: the same file, a new run.
    expect(
      await runSignatureCheck({ pool: team.owner, db, ledger, now: () => Date.now(), keys: evidenceKeys, page: 3 }),
    ).toBe('done');
    expect(signatureCheckProgress(db)).toBeNull();
    const collections = db.prepare('SELECT count(*) FROM collections').pluck().get();
    expect(db.prepare('SELECT count(*) FROM reconciliation').pluck().get()).toBe(collections);
    expect(
      db
        .prepare(
          "SELECT count(*) FROM collection_events WHERE source IN ('callback', 'import', 'redirect') AND signature = 'verified'",
        )
        .pluck()
        .get(),
    ).toBe(1);
  });
});
