// The statements of a desk's re-base when the team record went back in time (team/sync/rollback.ts says
// when and why): this desk's copy of some references removed, to be applied again from the record, inside
// one write transaction with foreign keys deferred; the outbox rows that must survive it pointed at their
// events' new ids; the chain's head, marks and alarms as the new record has them.
import type { Db, WriteDb } from '../connection.js';
import { statement } from '../statements.js';
import { collectionIdsIn } from '../ledger/intent-rows.js';
import { intValue } from '../../columns.js';
import { bulkTriggers } from './bulk-schema.js';
import type { ChainHead } from './chain-head.js';

/**
 * Foreign keys are checked at commit from here on, in the caller's write transaction: the re-base takes an
 * event away from under its outbox row and gives the row the event's new id before it commits.
 */
export function deferForeignKeys(db: Db): void {
  db.pragma('defer_foreign_keys = ON');
}

/**
 * The id each of these references' collections takes when the re-base applies it again: the one it had
 * (read here, before removeReferences), else one above every id this desk has given out. Whatever holds a
 * collection by its id across the re-base (a charge in flight follows and closes its payment by it, a
 * screen's open row, a resolution being written) still names the same payment: given out again in the
 * record's order instead, the freed ids changed hands, and a charge's window went on with a colleague's.
 */
export function keptCollectionIds(db: WriteDb, refs: readonly string[]): (merchantReference: string) => number {
  const had = new Map<string, number>();
  for (let i = 0; i < refs.length; i += 500)
    for (const [ref, id] of collectionIdsIn(db, JSON.stringify(refs.slice(i, i + 500)))) had.set(ref, id);
  const top = statement(db, 'SELECT max(id) FROM collections', 'pluck').get();
  let fresh = top === null || top === undefined ? 0 : intValue(top, 'id');
  return (ref) => had.get(ref) ?? ++fresh;
}

/**
 * Removes this desk's copy of these references: their events (but the outbox rows of those to send or
 * refused, whose events the caller appends again and points the rows at), the outbox rows of the others
 * (the record has those events now), their collections and reconciliation rows. Inside the caller's write
 * transaction, with foreign keys deferred; the append-only trigger on delete is lifted for this alone and
 * made again, from its migration's own text, before the transaction ends.
 */
export function removeReferences(db: WriteDb, refs: readonly string[]): { events: number; collections: number } {
  if (!db.inTransaction) throw new Error('a re-base removes references only inside its write transaction');
  const noDelete = bulkTriggers(false).get('collection_events_no_delete');
  if (!noDelete) throw new Error('the append-only trigger on delete is missing from the migrations');
  db.exec('DROP TRIGGER collection_events_no_delete');
  let events = 0;
  let collections = 0;
  const sentOutbox = statement(
    db,
    `DELETE FROM team_outbox WHERE state = 'sent' AND event_id IN (
       SELECT id FROM collection_events WHERE merchant_reference IN (SELECT value FROM json_each(?)))`,
  );
  const evs = statement(
    db,
    'DELETE FROM collection_events WHERE merchant_reference IN (SELECT value FROM json_each(?))',
  );
  const recon = statement(
    db,
    `DELETE FROM reconciliation WHERE collection_id IN (
       SELECT id FROM collections WHERE merchant_reference IN (SELECT value FROM json_each(?)))`,
  );
  const cols = statement(db, 'DELETE FROM collections WHERE merchant_reference IN (SELECT value FROM json_each(?))');
  for (let i = 0; i < refs.length; i += 500) {
    const chunk = JSON.stringify(refs.slice(i, i + 500));
    sentOutbox.run(chunk);
    events += evs.run(chunk).changes;
    recon.run(chunk);
    collections += cols.run(chunk).changes;
  }
  db.exec(noDelete);
  return { events, collections };
}

/**
 * Parks outbox rows kept across a re-base on the negative of their own id before each is repointed to its
 * event's new id (repointOutbox): the re-applied events may take ids the removal freed, so a new id may be
 * another kept row's old one, and team_outbox.event_id is unique (checked at each row). The refold moves
 * its rows in two steps for the same reason (refold.ts rewriteEventsOf). Foreign keys are deferred then.
 */
export function parkOutbox(db: WriteDb, outboxIds: readonly number[]): void {
  const park = statement(db, 'UPDATE team_outbox SET event_id = -id WHERE id = ?');
  for (const id of outboxIds) park.run(id);
}

/** An outbox row now belongs to its event's new id (the same event, appended again by the re-base). */
export function repointOutbox(db: WriteDb, outboxId: number, eventId: number): void {
  statement(db, 'UPDATE team_outbox SET event_id = ? WHERE id = ?').run(eventId, outboxId);
}

/** Forgets the marks after `seq` and what was witnessed after it: the record from there is a new one. */
export function forgetAfter(db: WriteDb, seq: number): void {
  statement(db, 'DELETE FROM team_chain_marks WHERE seq > ?').run(seq);
  statement(db, 'DELETE FROM team_witness WHERE seq > ?').run(seq);
}

/** Keeps the new head and its marks (inside the re-base's transaction). */
export function keepRebasedHead(db: WriteDb, head: ChainHead, marks: readonly ChainHead[], now: number): void {
  statement(
    db,
    `INSERT INTO team_chain (one_row, seq, hash, updated_at) VALUES (1, ?, ?, ?)
     ON CONFLICT (one_row) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, updated_at = excluded.updated_at`,
  ).run(head.seq, head.hash, now);
  const mark = statement(db, 'INSERT OR REPLACE INTO team_chain_marks (seq, hash) VALUES (?, ?)');
  for (const m of marks) mark.run(m.seq, m.hash);
}

/** The alarms of the chain, cleared with the re-base (the record it named is the new one now). */
export function clearChainAlarms(db: WriteDb): void {
  statement(db, 'DELETE FROM team_chain_alarm').run();
}
