// The one write that may rewrite a stored event (a snapshot's verdict this desk does not share) lifts the
// append-only trigger only for itself: afterwards the event table refuses updates again, with the same
// trigger a freshly migrated desk has, whatever happened inside.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/tmp.js';
import { openDatabase, type Db } from '../../../main/store/sqlite/connection.js';
import { writeTransaction } from '../../../main/store/sqlite/transaction.js';
import { correctOrphanVerdict, withAppendOnlyLifted } from '../../../main/store/sqlite/team/event-verdicts.js';
import { migratedSchema, schemaOf } from '../../../main/store/sqlite/team/snapshot-file.js';

function deskWithOrphan(): { db: Db; id: number } {
  const db = openDatabase(path.join(tempDir(), 'md.sqlite'));
  const info = db
    .prepare(
      `INSERT INTO collection_events (collection_id, merchant_reference, source, kind, received_at, signature, dedupe_key)
       VALUES (NULL, 'ORPHAN-1', 'callback', 'outcome', 1, 'verified', 'callback:ORPHAN-1:1')`,
    )
    .run();
  return { db, id: Number(info.lastInsertRowid) };
}

const rewrite = (db: Db, id: number) =>
  db.prepare("UPDATE collection_events SET signature = 'verified' WHERE id = ?").run(id);

describe('lifting the append-only trigger for a verdict correction', () => {
  it('corrects the verdict, then refuses any other update, with the trigger a fresh desk has', () => {
    const { db, id } = deskWithOrphan();
    correctOrphanVerdict(db, id, 'invalid', 'the signature does not match');
    expect(db.prepare('SELECT signature, note FROM collection_events WHERE id = ?').get(id)).toEqual({
      signature: 'invalid',
      note: 'the signature does not match',
    });
    expect(() => rewrite(db, id)).toThrow('collection_events is append-only');
    expect(schemaOf(db)).toBe(migratedSchema());
  });

  it('puts the trigger back when the correction fails part way', () => {
    const { db, id } = deskWithOrphan();
    expect(() =>
      writeTransaction(db, () =>
        withAppendOnlyLifted(db, () => {
          rewrite(db, id);
          throw new Error('stopped part way');
        }),
      ),
    ).toThrow('stopped part way');
    expect(db.prepare('SELECT signature FROM collection_events WHERE id = ?').pluck().get(id)).toBe('verified');
    expect(() => rewrite(db, id)).toThrow('collection_events is append-only');
  });

  it('is refused outside a write transaction, the trigger untouched', () => {
    const { db, id } = deskWithOrphan();
    expect(() => withAppendOnlyLifted(db, () => rewrite(db, id))).toThrow('only inside a write transaction');
    expect(() => rewrite(db, id)).toThrow('collection_events is append-only');
  });
});
