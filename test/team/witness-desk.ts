// Desks of a team as the app runs them, for the rollback tests: a signed-in session on its own pool (the
// pull and the outbox push, team/session.ts) over a SQLite file that outlives the session, so a desk
// can be closed while the team database goes back in time and opened again after, as an app restart.
// Charges are what the app stores: the intent in the team first, its local copy, and what the service
// answered (initialize, the window's closing) through the ledger with an outbox row.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { saveIntentCollection } from '../../main/collections/intent-row.js';
import { outboxCounts } from '../../main/collections/outbox.js';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { openTeamPool } from '../../main/team/pool.js';
import { recordEvents, recordIntent, withTeamKey, type TeamIntent } from '../../main/team/record.js';
import type { TeamRole } from '../../main/team/roles.shared.js';
import { startTeamSession, type TeamSession } from '../../main/team/session.js';
import type { TeamSyncStatus } from '../../main/team/sync/pull.js';
import type { SignatureKeys } from '../../main/service/verify-callback.js';
import { initializeAccepted, newIntent, quietLogger } from './sync-desk.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';
import { teamCharges } from '../../main/operations/charge.js';
import type { TeamIntentRecorded } from '../../main/collections/charge/types.js';
import { cardFingerprint, teamFingerprintKey } from '../../main/collections/charge/fingerprint.js';

const { ledger } = testLedger();
/** Every desk of a team derives the same fingerprint key from the merchant's secret key. */
const FINGERPRINT_KEY = teamFingerprintKey('sk_test_the_merchants_secret_key');

export interface WitnessDesk {
  login: string;
  db: Db;
  session: TeamSession | null;
  /** Signs in (a new pool and session on the same SQLite file). */
  open(): void;
  /** Ends the session (what the outbox holds stays); the SQLite file stays. */
  shut(): Promise<void>;
  status(): TeamSyncStatus;
  /** A charge as the app stores it: intent team-first, then initialize's answer through the outbox. */
  charge(over?: Partial<TeamIntent>): Promise<TeamIntent>;
  /**
   * A card charged as the app's charge operation does it (operations/charge.ts teamCharges): the intent
   * under the team's guards with the card's keyed fingerprint; recorded, it is stored and answered as
   * charge() does. What the team database said: recorded, or "Charge this card again?" (who, when).
   */
  chargeCard(card: string, amountMinor: number): Promise<{ said: TeamIntentRecorded; intent: TeamIntent }>;
  /** The agent closed the payment window (a redirect-source event through the outbox; shut, it waits there). */
  closeWindow(intent: TeamIntent): void;
  /** A person's note on a payment (a resolution), recorded in the team first, then locally. */
  note(reference: string, text: string): Promise<void>;
  close(): Promise<void>;
}

export function witnessDesk(o: {
  url: string;
  login: string;
  role: TeamRole;
  keys: SignatureKeys;
  pollEveryMs?: number;
  options?: Record<string, unknown>;
  /** Another desk's SQLite file (its close leaves it open): the same copy pointed elsewhere. */
  db?: Db;
}): WitnessDesk {
  const dir = fileTempDir('md-witness-');
  const db = o.db ?? openDatabase(path.join(dir, 'merchant-desk.sqlite'));
  let session: TeamSession | null = null;
  const live = () => {
    if (!session) throw new Error(`desk ${o.login} is shut`);
    return session;
  };
  // The app's charge seam on this desk's session, as a team profile composes it (app/team.ts).
  const charges = teamCharges({ login: o.login, session: () => session });
  /** The intent's local copy and initialize's answer through the outbox, as the charge service stores them. */
  const answered = (intent: TeamIntent) => {
    const id = saveIntentCollection(ledger, db, intent);
    ledger.append(db, { ...initializeAccepted(id, intent.merchantReference), actor: o.login }, { outbox: true });
    live().push.kick();
  };
  const desk: WitnessDesk = {
    login: o.login,
    db,
    get session() {
      return session;
    },
    open() {
      if (session) return;
      const pool = openTeamPool(o.url, { onIdleError: () => undefined });
      session = startTeamSession({
        pool,
        login: o.login,
        role: o.role,
        db,
        ledger,
        clock: systemClock,
        logger: quietLogger,
        syncEveryMs: o.pollEveryMs ?? 1_000,
        evidenceKeys: () => o.keys,
        ...o.options,
      });
    },
    async shut() {
      const s = session;
      session = null;
      await s?.close();
    },
    status: () => live().sync.status(),
    async charge(over = {}) {
      const intent = { ...newIntent({ currency: 'NGN', amountMinor: 150_050, ...over }), operator: o.login };
      await recordIntent(live().pool, intent);
      answered(intent);
      return intent;
    },
    async chargeCard(card, amountMinor) {
      const intent = { ...newIntent({ currency: 'NGN', amountMinor, cardLast4: card.slice(-4) }), operator: o.login };
      const said = await charges.recordIntent(intent, {
        fingerprint: cardFingerprint(FINGERPRINT_KEY, card, amountMinor, 'NGN'),
        confirmedRepeat: false,
        dayStart: Date.now() - 3_600_000,
        maxDailyMinor: 1_000_000_000,
      });
      if (said.kind === 'recorded') answered(intent);
      return { said, intent };
    },
    closeWindow(intent) {
      const id = db
        .prepare('SELECT id FROM collections WHERE merchant_reference = ?')
        .pluck()
        .get(intent.merchantReference) as number;
      ledger.append(
        db,
        {
          collectionId: id,
          merchantReference: intent.merchantReference,
          source: 'redirect',
          kind: 'window_closed',
          receivedAt: Date.now(),
          signature: 'not_applicable',
          actor: o.login,
          note: 'the payment window was closed before the customer finished',
        },
        { outbox: true },
      );
      session?.push.kick();
    },
    async note(reference, text) {
      const id = db.prepare('SELECT id FROM collections WHERE merchant_reference = ?').pluck().get(reference) as
        number | null;
      const ev = withTeamKey({
        collectionId: id ?? null,
        merchantReference: reference,
        source: 'manual' as const,
        kind: 'resolution' as const,
        receivedAt: Date.now(),
        signature: 'not_applicable' as const,
        note: text,
        actor: o.login,
      });
      await recordEvents(live().pool, [ev]);
      ledger.append(db, ev);
    },
    async close() {
      await desk.shut();
      if (!o.db) db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return desk;
}

/** Events waiting in a desk's outbox. */
export const pendingOf = (d: WitnessDesk): number => outboxCounts(d.db).pending;

/** A desk's whole copy as a replay would make it: rows without local ids, events per reference in their order. */
export function copyOf(db: Db): {
  collections: Record<string, unknown>[];
  events: Record<string, Record<string, unknown>[]>;
  reconciliation: Record<string, unknown>[];
} {
  const collections = (
    db.prepare('SELECT * FROM collections ORDER BY merchant_reference').all() as Record<string, unknown>[]
  ).map(({ id: _id, last_event_id: _last, ...rest }) => rest);
  const events: Record<string, Record<string, unknown>[]> = {};
  for (const e of db
    .prepare(
      `SELECT e.merchant_reference, e.internal_reference, e.source, e.kind, e.status, e.received_at, e.signature,
              e.amount_minor, e.currency, e.dedupe_key, e.payload, e.note, e.actor, e.collection_id IS NOT NULL AS attached
       FROM collection_events e ORDER BY e.id`,
    )
    .all() as Record<string, unknown>[])
    (events[e.merchant_reference as string] ??= []).push(e);
  const reconciliation = db
    .prepare(
      `SELECT c.merchant_reference, r.outcome, r.kinds, r.open_kinds, r.is_exception, r.stale_at, r.resolution_note,
              r.initiate_status, r.redirect_status, r.callback_status, r.import_status, r.manual_status, r.completed_at
       FROM reconciliation r JOIN collections c ON c.id = r.collection_id ORDER BY c.merchant_reference`,
    )
    .all() as Record<string, unknown>[];
  return { collections, events, reconciliation };
}

/** The team record's event keys, each with how many times it is there. */
export async function recordKeys(pool: pg.Pool | pg.Client): Promise<Map<string, number>> {
  const r = await pool.query<{ event_key: string; n: string }>(
    'SELECT event_key, count(*) AS n FROM team.events GROUP BY event_key',
  );
  return new Map(r.rows.map((x) => [x.event_key, Number(x.n)]));
}
