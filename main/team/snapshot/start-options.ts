// What a new desk's start from a snapshot is given (start.ts), in a module of its own so the checks
// (run-checks.ts) can name the part they read without importing start.ts back.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import type { Ledger } from '../../collections/ledger.js';

export interface SnapshotStartOptions {
  pool: pg.Pool;
  db: Db;
  /** Reconciles the copy once it is shown (unless its signatures are re-checked first: deferSignatures). */
  ledger: Pick<Ledger, 'reconcileHistory'>;
  now: () => number;
  chunk?: number;
  /** How far the verification is, by seq, against the snapshot's seq. */
  onProgress?: (p: { copiedSeq: number; totalSeq: number }) => void;
  stopped?: () => boolean;
  /** Told as each phase ends (the bench measures them apart). */
  onPhase?: (phase: 'download' | 'verify' | 'copy' | 'reconcile') => void;
  /** The keys this desk checks signed events with (verify.ts); read once, when the check starts. */
  keys?: () => SignatureKeys;
  /**
   * false: re-check every signed event's signature before the copy is shown. Otherwise (with keys) the
   * snapshot's verdicts are taken at first and re-checked after (sync/signature-check.ts), which also
   * reconciles once done: the copy commits with the record of that check and is not reconciled here.
   */
  deferSignatures?: boolean;
}
