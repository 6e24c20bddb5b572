// A new desk's re-check of the signatures it took from a snapshot (issue 20: "a new desk may show its
// copy before every old signature is re-checked, provided each collection that rests on an unchecked
// one says so and the check finishes in the background").
//
// The snapshot start (snapshot/start.ts, verify.ts deferSignatures) compares every row of the snapshot
// with the record and checks the hash chain as before, but takes each signed event's verdict as the
// snapshot stored it, and commits the copy with a team_signature_check row (store migration 18): the
// events 1..upto_event_id are the record's up to upto_seq, in seq order, and none of their signatures
// is this desk's own word yet. Until this check has passed an event:
// - its collection says "signature being checked" (collections/query.ts signatureBeingChecked, list and detail);
// - nothing is reconciled (the start skips reconcileAll): no collection counts as matched on a
//   signature this desk did not check. The check reconciles everything once it is done.
//
// The check reads the record again in pages, as the start did, and walks the stored events beside it
// (event id = position in the record), checking each signed event with this desk's keys. Work is cut
// into slices of about 40 ms on the main thread (the RSA-only desk takes ~0.3 ms an event, the HMAC one
// ~11 us), each page's progress committed with the page, so a restart resumes where it stopped.
//
// An event whose verdict differs from the one the snapshot stored (a forged "verified") is corrected to
// this desk's verdict, as the replay would have stored it: its signature and note, and its collection
// folded again from the record's events (the kinds and the projection follow), so the collection is
// what today's unverified path makes of it: its status unmoved, flagged, and an exception once
// reconciled. The append-only trigger is lifted for that correction alone, in its transaction: the rows
// it rewrites were never this desk's word.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import {
  advanceSignatureCheck,
  endSignatureCheck,
  signatureCheckRow,
} from '../../store/sqlite/team/signature-check-state.js';
import { correctOrphanVerdict, rewriteVerdicts, storedVerdicts } from '../../store/sqlite/team/event-verdicts.js';
import { pullPageRaw } from '../events.js';
import { SIGNED_SOURCES, teamEventVerifier, unverifiedNote } from '../evidence.js';
import { fetchRecord, foldAgain, type Fetched } from './signature-fold.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import type { Ledger } from '../../collections/ledger.js';

/** How far the re-check is: signed events checked of those taken from the snapshot, and how many did not verify. */
export interface SignatureCheckProgress {
  checked: number;
  total: number;
  failed: number;
}

/** The re-check this desk still owes, or null when there is none. */
export function signatureCheckProgress(db: Db): SignatureCheckProgress | null {
  const r = signatureCheckRow(db);
  return r ? { checked: r.checked_signed, total: r.signed_total, failed: r.failed } : null;
}

export interface SignatureCheckOptions {
  pool: pg.Pool;
  db: Db;
  /** Reconciles the history once every signature is checked (nothing is reconciled before). */
  ledger: Pick<Ledger, 'reconcileHistory'>;
  now: () => number;
  /** The keys to check with, read when the check starts. */
  keys: () => SignatureKeys;
  onProgress?: (p: SignatureCheckProgress | null) => void;
  stopped?: () => boolean;
  /** Events per page read from the record (default 5,000). */
  page?: number;
  /** The longest the main thread is held at a time (default 40 ms). */
  sliceMs?: number;
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Runs (or resumes) the re-check to its end: 'done' once every signature was checked and the desk
 * reconciled, 'stopped' when the desk closed part way (the next start resumes), 'none' when there was
 * nothing to check. A record that no longer lines up with the copy throws (the chain check says why).
 */
export async function runSignatureCheck(o: SignatureCheckOptions): Promise<'done' | 'stopped' | 'none'> {
  const { db, pool } = o;
  let row = signatureCheckRow(db);
  if (!row) return 'none';
  const verify = teamEventVerifier(o.keys());
  const sliceMs = o.sliceMs ?? 40;
  o.onProgress?.({ checked: row.checked_signed, total: row.signed_total, failed: row.failed });
  while (row.checked_event_id < row.upto_event_id) {
    if (o.stopped?.()) return 'stopped';
    const page = await pullPageRaw(pool, row.checked_seq, o.page ?? 5_000, row.upto_seq);
    if (o.stopped?.()) return 'stopped';
    const n = Math.min(page.events.length, row.upto_event_id - row.checked_event_id);
    if (n === 0)
      throw new Error(
        `the team record ends at seq ${row.checked_seq}, before the ${row.upto_event_id} events this desk copied`,
      );
    const rows = storedVerdicts(db, row.checked_event_id, row.checked_event_id + n);
    const failed = new Set<number>();
    let failedEvents = 0;
    let signed = 0;
    for (let i = 0; i < n;) {
      const started = performance.now();
      for (; i < n && performance.now() - started < sliceMs; i++) {
        const tev = page.events[i]!;
        const r = rows[i];
        if (!r || r.dedupe_key !== tev.eventKey)
          throw new Error(`event ${row.checked_event_id + i + 1} of this desk is not seq ${tev.seq} of the record`);
        if (!SIGNED_SOURCES.has(tev.source)) continue;
        signed++;
        const v = verify(tev);
        if (r.signature !== v.signature || r.note !== unverifiedNote(tev.note, v)) {
          failedEvents++;
          if (r.collection_id !== null) failed.add(r.collection_id);
          else correctOrphanVerdict(db, r.id, v.signature, unverifiedNote(tev.note, v));
        }
      }
      if (i < n) {
        await nextTurn();
        if (o.stopped?.()) return 'stopped';
      }
    }
    // The record's events of each collection to fold again, read before the transaction that folds them.
    const fetched: Fetched[] = [];
    for (const id of failed) {
      const f = await fetchRecord(o, id);
      if (f) fetched.push(f);
    }
    if (o.stopped?.()) return 'stopped';
    const before = row;
    writeTransaction(db, () => {
      if (fetched.length)
        rewriteVerdicts(
          db,
          fetched.map((f) => foldAgain(db, f, verify)),
        );
      advanceSignatureCheck(db, before.checked_event_id + n, page.events[n - 1]!.seq, signed, failedEvents);
    });
    row = signatureCheckRow(db)!;
    o.onProgress?.({ checked: row.checked_signed, total: row.signed_total, failed: row.failed });
    await nextTurn();
  }
  if (o.stopped?.()) return 'stopped';
  await o.ledger.reconcileHistory(db, { now: o.now() });
  endSignatureCheck(db);
  o.onProgress?.(null);
  return 'done';
}
