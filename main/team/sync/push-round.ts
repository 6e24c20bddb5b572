// One round of the outbox push (push.ts): the desk's pending entries sent in statements of a batch each
// until none is left, an outage met, or the push held back. A statement the database refuses as a whole is
// sent again entry by entry, so only the refused entries are marked (with the reason, and their collections
// folded again without them); the entries behind them go on. An entry the record holds already (an earlier
// send committed, its answer lost) is sent, whatever the database says of it now.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { markRefold } from '../../store/sqlite/team/refold.js';
import { selectSeqsOfKeys } from '../../store/pg/rollback.js';
import { markOutboxRefused, markOutboxSent, pendingOutbox, type OutboxEntry } from '../../collections/outbox.js';
import { TeamError, TeamFieldError, TeamSignInError, TeamUnavailableError, translatePgError } from '../errors.js';
import { poolLogin } from '../pool.js';
import { recordEvents } from '../record.js';
import { messageOf } from '../../errors.shared.js';

/** Classes of SQLSTATE that say "not now" rather than "no": serialization, deadlock, lock, cancel, resources, system. */
const TRANSIENT = /^(40001|40P01|55P03|57014|53|58|XX)/;

/**
 * Whether a failed send met an outage (keep the entries and try again) rather than a refusal of them.
 * Unknown failures count as outages: an event is never dropped on a guess.
 */
export function isOutage(e: unknown): boolean {
  if (!(e instanceof TeamError)) return true;
  if (e instanceof TeamUnavailableError || e instanceof TeamSignInError) return true;
  if (e instanceof TeamFieldError) return false; // the event check, or a constraint naming a field
  if (e.code === undefined) return true; // no SQLSTATE: nothing in the database said no
  return TRANSIENT.test(e.code);
}

export interface PushRoundOptions {
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  logger: { warn(obj: object, msg?: string): void };
  batchSize: number;
  closed: () => boolean;
  /** Why nothing may be sent now, or null. Checked before each statement. */
  holdBack?: (() => string | null) | undefined;
  /** Entries refused by the database (their collections show it now). */
  onRefused?: ((entries: readonly OutboxEntry[], reason: string) => void) | undefined;
  /** A statement was taken: nothing waits any more. */
  sent(): void;
  /** The push is held back for `reason`: the entries stay. */
  held(reason: string): void;
  /** A send met an outage: the entries stay and are sent again later. */
  outage(entries: readonly OutboxEntry[], e: unknown): void;
}

async function send(o: PushRoundOptions, entries: readonly OutboxEntry[]): Promise<void> {
  try {
    await recordEvents(
      o.pool,
      entries.map((x) => x.event),
    );
  } catch (e) {
    throw translatePgError(e, 'append events', poolLogin(o.pool));
  }
}

function refuse(o: PushRoundOptions, entry: OutboxEntry, e: unknown): void {
  const { db, clock } = o;
  const reason = messageOf(e);
  // Refused, it is left out of its collection's fold: the desk never shows as fact what the team refused.
  writeTransaction(db, () => {
    markOutboxRefused(db, entry.id, reason, clock.now());
    markRefold(db, entry.event.merchantReference, clock.now());
  });
  o.logger.warn(
    { reference: entry.event.merchantReference, kind: entry.event.kind, eventKey: entry.eventKey, reason },
    'the team database refused an event: it stays on this desk, marked as not accepted',
  );
  try {
    o.onRefused?.([entry], reason);
  } catch (err) {
    o.logger.warn({ err }, 'team push: onRefused failed');
  }
}

/**
 * Whether the record holds the refused entry's key already: a send whose statement committed but whose answer
 * was lost (an outage) left the entry pending, and sent again it is refused by a check the database makes on
 * the row before its key (row-level security, after an admin changed the operator's role meanwhile). A key
 * already there counts as taken, as ON CONFLICT DO NOTHING counts it. null: the read met an outage.
 */
async function alreadyTaken(o: PushRoundOptions, entry: OutboxEntry): Promise<boolean | null> {
  try {
    return (await selectSeqsOfKeys(o.pool, [entry.eventKey])).length > 0;
  } catch (e) {
    const err = translatePgError(e, 'read events', poolLogin(o.pool));
    if (!isOutage(err)) return false; // the read refused too: the refusal stands
    o.outage([entry], err);
    return null;
  }
}

/** A refusal of one entry: sent when the record holds it already, refused otherwise. false: an outage. */
async function refuseUnlessTaken(o: PushRoundOptions, entry: OutboxEntry, e: unknown): Promise<boolean> {
  const taken = await alreadyTaken(o, entry);
  if (taken === null) return false;
  if (taken) {
    markOutboxSent(o.db, [entry.id], o.clock.now());
    o.sent();
  } else refuse(o, entry, e);
  return true;
}

/** The statement was refused as a whole: each entry alone, so only the refused ones are held. false: an outage. */
async function oneByOne(o: PushRoundOptions, batch: readonly OutboxEntry[]): Promise<boolean> {
  for (const entry of batch) {
    if (o.closed()) return true;
    try {
      await send(o, [entry]);
      markOutboxSent(o.db, [entry.id], o.clock.now());
      o.sent();
    } catch (e) {
      if (isOutage(e)) {
        o.outage([entry], e);
        return false;
      }
      if (!(await refuseUnlessTaken(o, entry, e))) return false;
    }
  }
  return true;
}

/** One round: true when everything that can be sent now was sent; false after an outage or held back. */
export async function pushRound(o: PushRoundOptions): Promise<boolean> {
  for (;;) {
    if (o.closed()) return true;
    const batch = pendingOutbox(o.db, o.batchSize);
    if (!batch.length) return true;
    const held = o.holdBack?.() ?? null;
    if (held) {
      o.held(held);
      return false;
    }
    try {
      await send(o, batch);
      markOutboxSent(
        o.db,
        batch.map((x) => x.id),
        o.clock.now(),
      );
      o.sent();
      continue;
    } catch (e) {
      if (isOutage(e)) {
        o.outage(batch, e);
        return false;
      }
      if (batch.length === 1) {
        if (!(await refuseUnlessTaken(o, batch[0]!, e))) return false;
        continue;
      }
    }
    if (!(await oneByOne(o, batch))) return false;
  }
}
