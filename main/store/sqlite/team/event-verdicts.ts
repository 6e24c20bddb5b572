// Correcting the verdicts a new desk took from a snapshot (team/sync/signature-check.ts): reading the
// stored verdicts beside the record, and, where one is not this desk's own, rewriting the event and its
// collection's projection. collection_events is append-only (migration 1's trigger); these are the only
// writes that lift that trigger, and only inside their own transaction.
import type { ReadDb, WriteDb } from '../connection.js';
import { collectionEventsNoUpdate } from '../migrations/001-initial.js';
import { readStatement, statement } from '../statements.js';
import { writeTransaction } from '../transaction.js';
import { writeProjection, type CollectionProjectionRow } from './collection-projection.js';
import { eventIdKeyOf } from './refold.js';
import { int, intOrNull, maybe, num, rowMapper, text, textOrNull } from '../../columns.js';

/** A stored event's verdict, as the re-check compares it with its own. */
export interface StoredVerdictRow {
  id: number;
  collection_id: number | null;
  dedupe_key: string | null;
  signature: string;
  note: string | null;
}
const storedVerdictRowOf = rowMapper<StoredVerdictRow>((r) => ({
  id: int(r, 'id'),
  collection_id: intOrNull(r, 'collection_id'),
  dedupe_key: textOrNull(r, 'dedupe_key'),
  signature: text(r, 'signature'),
  note: textOrNull(r, 'note'),
}));

/** The stored verdicts of events `afterId` + 1 .. `uptoId`, in id order. */
export function storedVerdicts(db: ReadDb, afterId: number, uptoId: number): StoredVerdictRow[] {
  return readStatement(
    db,
    'SELECT id, collection_id, dedupe_key, signature, note FROM collection_events WHERE id > ? AND id <= ? ORDER BY id',
  )
    .all(afterId, uptoId)
    .map(storedVerdictRowOf);
}

/**
 * Runs `fn` with the append-only trigger on an event's UPDATE lifted, inside the caller's write
 * transaction: the trigger is made again, from migration 1's own text, before the transaction commits,
 * and a failure rolls both back with it.
 */
export function withAppendOnlyLifted(db: WriteDb, fn: () => void): void {
  if (!db.inTransaction) throw new Error('the append-only trigger is lifted only inside a write transaction');
  db.exec('DROP TRIGGER collection_events_no_update');
  fn();
  db.exec(collectionEventsNoUpdate);
}

/** Rewrites an orphan event's verdict (no collection rests on it), in a transaction of its own. */
export function correctOrphanVerdict(db: WriteDb, id: number, signature: string, note: string | null): void {
  writeTransaction(db, () =>
    withAppendOnlyLifted(db, () => {
      statement(db, 'UPDATE collection_events SET signature = ?, note = ? WHERE id = ?').run(signature, note, id);
    }),
  );
}

/** What a collection is folded again from: its reference (to read the record's events) and its intent's terms. */
export interface FoldBasisRow {
  merchant_reference: string;
  created_at: number;
  amount_minor: number;
  currency: string;
}

const foldBasisRowOf = rowMapper<FoldBasisRow>((r) => ({
  merchant_reference: text(r, 'merchant_reference'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
}));

export function foldBasis(db: ReadDb, collectionId: number): FoldBasisRow | undefined {
  const r = readStatement(
    db,
    'SELECT merchant_reference, created_at, amount_minor, currency FROM collections WHERE id = ?',
  ).get(collectionId);
  return maybe(r, foldBasisRowOf);
}

/** A collection's stored events, in the order it stored them: each one's id and dedupe key. */
export function collectionEventKeys(db: ReadDb, collectionId: number): { id: number; dedupe_key: string | null }[] {
  return readStatement(db, 'SELECT id, dedupe_key FROM collection_events WHERE collection_id = ? ORDER BY id')
    .all(collectionId)
    .map(eventIdKeyOf);
}

/** A collection folded again with this desk's verdicts: each event's kind and verdict, and the projection. */
export interface Refolded {
  id: number;
  events: { id: number; kind: string; signature: string; note: string | null }[];
  projection: CollectionProjectionRow;
}

/** Writes collections folded again, inside the caller's write transaction. */
export function rewriteVerdicts(db: WriteDb, fixes: readonly Refolded[]): void {
  const event = statement(db, 'UPDATE collection_events SET kind = ?, signature = ?, note = ? WHERE id = ?');
  withAppendOnlyLifted(db, () => {
    for (const f of fixes) {
      for (const e of f.events) event.run(e.kind, e.signature, e.note, e.id);
      writeProjection(db, f.id, f.projection);
    }
  });
}
