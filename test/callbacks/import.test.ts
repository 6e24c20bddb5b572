import fs from 'node:fs';
import path from 'node:path';
import { captureIo } from '../support/cli-here.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { importCallbacksJsonl } from '../../main/callbacks/import-jsonl.js';
import { getCollection } from '../../main/collections/query.js';
import { listOrphanCallbacks } from '../../main/reconcile/index.js';
import { systemClock } from '../../main/clock.js';
import { runCli } from '../../main/cli/index.js';
import { dataPaths } from '../../main/settings/paths.js';
import { openDataFolder } from '../../main/settings/data-folder.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { listSecurityLog } from '../../main/callbacks/security-log.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, deeplyNested, hmacHeader, SIGNING_KEY } from './support.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

function jsonl(lines: (object | string)[]): string {
  return lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
}

function sampleLines(key: string) {
  const known = callbackBody('MD-I-00000001');
  const orphan = callbackBody('NOT-OURS-0001', 'FAILED');
  const forged = callbackBody('MD-I-00000002', 'COMPLETED');
  return [
    { headers: { 'Content-Type': 'application/json', 'HMAC-Signature': hmacHeader(known, key) }, body: known },
    // the same callback, body kept as its raw string: a duplicate
    { headers: { 'hmac-signature': hmacHeader(known, key) }, body: JSON.stringify(known, null, 1) },
    { headers: { 'hmac-signature': hmacHeader(orphan, key) }, body: orphan },
    { headers: { 'hmac-signature': hmacHeader(forged, 'not-the-key') }, body: forged },
    '{"headers": {}, "body": ',
    '',
    { body: known },
    { headers: {}, body: { event: 'transaction.completed' } },
    '[1,2,3]',
  ];
}

describe('import callbacks from JSON lines', () => {
  it('imports through the same ingestion, line by line, with a reason for each bad line', async () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, 'merchant-desk.db'));
    const id = insertCollection(db, { reference: 'MD-I-00000001' });
    const id2 = insertCollection(db, { reference: 'MD-I-00000002' });
    const file = path.join(dir, 'callbacks.jsonl');
    fs.writeFileSync(file, jsonl(sampleLines(SIGNING_KEY)));
    const s = await importCallbacksJsonl(db, file, { keys: { signingKey: SIGNING_KEY }, clock: systemClock, ledger });
    expect(s).toMatchObject({ lines: 8, imported: 2, orphans: 1, duplicates: 1, badSignatures: 1, malformed: 4 });
    expect(s.results.map((r) => `${r.line}:${r.result}`)).toEqual([
      '1:imported',
      '2:duplicate',
      '3:imported',
      '4:bad_signature',
      '5:malformed',
      '7:malformed',
      '8:malformed',
      '9:malformed',
    ]);
    const bad = s.results.filter((r) => r.result === 'malformed').map((r) => (r as { message: string }).message);
    expect(bad[0]).toBe('line 5 is not valid JSON');
    expect(bad[1]).toMatch(/^line 7: "headers" must be an object/);
    expect(bad[2]).toMatch(/^line 8: payload is missing/);
    expect(bad[3]).toMatch(/^line 9 must be an object/);
    expect(getCollection(db, id)!.collection.status).toBe('COMPLETED');
    expect(getCollection(db, id)!.events.map((e) => `${e.source}:${e.kind}`)).toEqual(['import:outcome']);
    // Changed rule: the unverified line names a real collection but is only counted, never stored on it.
    expect(getCollection(db, id2)!.collection).toMatchObject({ status: 'PENDING', flags: [] });
    expect(getCollection(db, id2)!.events).toEqual([]);
    expect(listSecurityLog(db).rows).toMatchObject([{ reason: 'bad_signature', source: 'import', count: 1 }]);
    expect(listOrphanCallbacks(db).rows.map((o) => o.merchantReference)).toEqual(['NOT-OURS-0001']);
    // Importing the file again changes nothing.
    const again = await importCallbacksJsonl(db, file, {
      keys: { signingKey: SIGNING_KEY },
      clock: systemClock,
      ledger,
    });
    expect(again).toMatchObject({ imported: 0, duplicates: 3 });
    db.close();
  });

  it('streams a large file without holding it in memory', async () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, 'merchant-desk.db'));
    const file = path.join(dir, 'many.jsonl');
    const out = fs.createWriteStream(file);
    for (let i = 0; i < 5000; i++) {
      const b = callbackBody(`BULK-${String(i).padStart(6, '0')}`);
      out.write(JSON.stringify({ headers: { 'hmac-signature': hmacHeader(b) }, body: b }) + '\n');
    }
    await new Promise((r) => out.end(r));
    const s = await importCallbacksJsonl(db, file, { keys: { signingKey: SIGNING_KEY }, clock: systemClock, ledger });
    expect(s).toMatchObject({ lines: 5000, imported: 5000, orphans: 5000 });
    db.close();
  });
});

describe('merchant-desk import-callbacks', () => {
  let sb: Sandbox | undefined;
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });

  const io = () => captureIo();

  it('prints a summary and each bad line, exit 1 when a line failed (embedded profile keys from its sandbox)', async () => {
    const dataDir = tempDir();
    sb = await startSandbox({ stateDir: dataPaths(dataDir).sandbox });
    const db = openDataFolder(dataDir);
    insertCollection(db, { reference: 'MD-I-00000001' });
    insertCollection(db, { reference: 'MD-I-00000002' });
    db.close();
    const file = path.join(dataDir, 'in.jsonl');
    fs.writeFileSync(file, jsonl(sampleLines(sb.signingKey)));
    const t = io();
    const code = await runCli(['--data-dir', dataDir, 'import-callbacks', file], t.io);
    expect(t.err()).toBe('');
    expect(code).toBe(1);
    expect(t.out()).toContain(
      '8 lines: 2 imported (1 for unknown references, kept for review), 1 duplicate, 1 bad signature, 4 malformed',
    );
    expect(t.out()).toContain('malformed line 5 is not valid JSON');
    expect(t.out()).toMatch(/line 4: bad signature \(MD-I-00000002\): hmac-signature does not match/);

    // Only good lines: exit 0, all duplicates now.
    const good = path.join(dataDir, 'good.jsonl');
    fs.writeFileSync(good, jsonl(sampleLines(sb.signingKey).slice(0, 3)));
    const t2 = io();
    expect(await runCli(['--data-dir', dataDir, 'import-callbacks', good, '--json'], t2.io)).toBe(0);
    expect(JSON.parse(t2.out())).toMatchObject({ lines: 3, imported: 0, duplicates: 3 });
  });

  // Issue 39: a line whose body held an array nested 8,000 deep printed "merchant-desk: Maximum call stack
  // size exceeded", exit 1, and imported nothing, not even the good lines; the bad line was not named.
  it('a line nested past the limit is named with its reason and the rest of the file is imported', async () => {
    const dataDir = tempDir();
    sb = await startSandbox({ stateDir: dataPaths(dataDir).sandbox });
    const db = openDataFolder(dataDir);
    const first = insertCollection(db, { reference: 'MD-I-00000011' });
    const last = insertCollection(db, { reference: 'MD-I-00000012' });
    db.close();
    const a = callbackBody('MD-I-00000011');
    const b = callbackBody('MD-I-00000012', 'FAILED');
    const deep = callbackBody('MD-I-00000013');
    const h = (body: ReturnType<typeof callbackBody>) => ({ 'hmac-signature': hmacHeader(body, sb!.signingKey) });
    const file = path.join(dataDir, 'in.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ headers: h(a), body: a }),
        // The body as a decoded object, and as its raw text.
        `{"headers":${JSON.stringify(h(deep))},"body":${deeplyNested(deep)}}`,
        JSON.stringify({ headers: h(deep), body: deeplyNested(deep) }),
        JSON.stringify({ headers: h(b), body: b }),
      ].join('\n') + '\n',
    );
    const t = io();
    const code = await runCli(['--data-dir', dataDir, 'import-callbacks', file], t.io);
    expect(t.err()).toBe('');
    expect(code).toBe(1);
    expect(t.out()).toBe(
      '4 lines: 2 imported (0 for unknown references, kept for review), 0 duplicate, 0 bad signature, 2 malformed\n' +
        '  malformed line 2 is nested more than 33 levels deep; a saved callback never is\n' +
        '  malformed line 3: the body is nested more than 32 levels deep; a callback never is\n',
    );
    const after = openDataFolder(dataDir);
    try {
      expect(getCollection(after, first)!.collection.status).toBe('COMPLETED');
      expect(getCollection(after, last)!.collection.status).toBe('FAILED');
      expect(listSecurityLog(after).totals).toEqual({ too_deep: 2 });
    } finally {
      after.close();
    }
  });

  it('says what to fix for a missing file or argument', async () => {
    const dataDir = tempDir();
    const t = io();
    expect(await runCli(['--data-dir', dataDir, 'import-callbacks', path.join(dataDir, 'nope.jsonl')], t.io)).toBe(2);
    expect(t.err()).toMatch(/cannot read .*nope\.jsonl: no such file/);
    const t2 = io();
    expect(await runCli(['--data-dir', dataDir, 'import-callbacks'], t2.io)).toBe(2);
    expect(t2.err()).toMatch(/give exactly one FILE/);
  });
});
