// A callbacks import on a team desk goes to the team database first. Which events an import stores is
// decided by the same ingestion the real import runs (parse, verify, dedupe key); running it once on a
// scratch database gives those events without touching this desk's record. They are recorded in the team
// database, and only then is the file imported here: the dedupe keys are the same (reference and a hash
// of the callback), so the sync recognises them and nothing is stored twice.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../store/db.js';
import type { NewEvent } from '../collections/events.js';
import type { EventKind, EventSource, SignatureState } from '../collections/model.js';

interface EventRow {
  merchant_reference: string;
  internal_reference: string | null;
  source: EventSource;
  kind: EventKind;
  status: string | null;
  received_at: number;
  signature: SignatureState;
  amount_minor: number | null;
  currency: string | null;
  dedupe_key: string | null;
  payload: string | null;
  note: string | null;
}

/** The events `run` stores when given an empty database (it is thrown away afterwards). */
export async function eventsAnImportStores(run: (scratch: Db) => Promise<unknown>): Promise<NewEvent[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-import-check-'));
  const scratch = openDatabase(path.join(dir, 'check.sqlite'));
  try {
    await run(scratch);
    const rows = scratch
      .prepare(
        `SELECT merchant_reference, internal_reference, source, kind, status, received_at, signature, amount_minor,
                currency, dedupe_key, payload, note
         FROM collection_events ORDER BY id`,
      )
      .all() as EventRow[];
    return rows.map((r) => ({
      collectionId: null,
      merchantReference: r.merchant_reference,
      internalReference: r.internal_reference,
      source: r.source,
      kind: r.kind,
      status: r.status,
      receivedAt: r.received_at,
      signature: r.signature,
      amountMinor: r.amount_minor,
      currency: r.currency,
      dedupeKey: r.dedupe_key,
      payload: r.payload,
      note: r.note,
    }));
  } finally {
    scratch.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
