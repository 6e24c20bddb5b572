// What a team desk's own checks cost (no PostgreSQL needed): (a) the check of one signed event from its
// evidence (team/evidence.ts), a callback and a redirect, with the service public key alone (RSA-SHA512,
// 4096-bit as the service's) and with the signing key too (a valid HMAC spares the RSA check); (b) the
// REINDEX of both tables a snapshot copy now does (snapshot/copy-worker.ts), at 100,000 collections of
// generate.ts's year. Run: npx tsx test/bench/evidence.ts [--collections N] [--events N]
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { callbackEvidence, redirectEvidence } from '../../main/collections/evidence.js';
import { teamEventVerifier, type EvidenceEvent } from '../../main/team/evidence.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { bulkTriggers } from '../../main/store/sqlite/team/bulk-schema.js';
import { generate } from './generate.js';

const { values } = parseArgs({
  options: { collections: { type: 'string', default: '100000' }, events: { type: 'string', default: '2000' } },
});
const collections = Number(values.collections);
const n = Number(values.events);

const service = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });
const pem = service.publicKey.export({ type: 'spki', format: 'pem' }).toString();

function callbackEvent(i: number): EvidenceEvent {
  const ref = `MD-BENCH-${i}`;
  const body = callbackBody(ref, 'COMPLETED');
  const p = body.payload;
  const signed = [body.event, p.merchant_reference, p.internal_reference, p.transaction_type, p.transaction_status];
  const rsa = crypto.sign('sha512', Buffer.from(signed.join(':')), service.privateKey).toString('base64');
  return {
    merchantReference: ref,
    internalReference: p.internal_reference,
    source: 'callback',
    kind: 'outcome',
    status: 'COMPLETED',
    amountMinor: 15_000,
    currency: 'UGX',
    signature: 'verified',
    payload: JSON.stringify(body),
    evidence: callbackEvidence({ hmac: hmacHeader(body), rsa }),
  };
}

function redirectEvent(i: number): EvidenceEvent {
  const ref = `MD-BENCH-${i}`;
  const q = {
    event: 'transaction.completed',
    merchant_reference: ref,
    internal_reference: `INT-${ref}`,
    transaction_type: 'Collection',
    transaction_status: 'COMPLETED',
  };
  const signed = Object.values(q).join(':');
  const rsa = crypto.sign('sha512', Buffer.from(signed), service.privateKey).toString('base64');
  const hmac = `t=${Math.floor(Date.now() / 1000)},s=${crypto.createHmac('sha256', SIGNING_KEY).update(signed).digest('hex')}`;
  const url = `https://merchant-desk.invalid/return?${new URLSearchParams({ ...q, hmac_signature: hmac, rsa_signature: rsa })}`;
  return {
    merchantReference: ref,
    internalReference: null,
    source: 'redirect',
    kind: 'outcome',
    status: 'COMPLETED',
    amountMinor: null,
    currency: null,
    signature: 'verified',
    payload: null,
    evidence: redirectEvidence(url),
  };
}

function time(what: string, events: EvidenceEvent[], keys: { signingKey: string | null; servicePublicKey: string }) {
  const verify = teamEventVerifier(keys);
  for (const e of events.slice(0, 200)) verify(e); // warm
  const t = performance.now();
  for (const e of events) {
    const v = verify(e);
    if (v.signature !== 'verified') throw new Error(`${what}: not verified (${v.reason})`);
  }
  const us = ((performance.now() - t) * 1000) / events.length;
  console.log(
    `${what}: ${us.toFixed(1)} µs an event (${events.length} events); 1.8 M signed events: ${((us * 1.8e6) / 1e6).toFixed(1)} s`,
  );
}

const cbs = Array.from({ length: n }, (_, i) => callbackEvent(i));
const rds = Array.from({ length: n }, (_, i) => redirectEvent(i));
time('callback, RSA-4096 only', cbs, { signingKey: null, servicePublicKey: pem });
time('callback, HMAC (signing key held)', cbs, { signingKey: SIGNING_KEY, servicePublicKey: pem });
time('redirect, RSA-4096 only', rds, { signingKey: null, servicePublicKey: pem });
time('redirect, HMAC (signing key held)', rds, { signingKey: SIGNING_KEY, servicePublicKey: pem });

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-evidence-'));
try {
  const file = path.join(dir, 'desk.sqlite');
  const g = generate({ file, collections, snapshots: 0, ingestTargets: 0, now: Date.now() });
  const signed = new Database(file, { readonly: true })
    .prepare(
      "SELECT source, count(*) AS n FROM collection_events WHERE source IN ('callback', 'import', 'redirect') GROUP BY source",
    )
    .all() as { source: string; n: number }[];
  console.log(`signed events of ${g.events} (${g.collections} collections): ${JSON.stringify(signed)}`);
  // The snapshot copy as copy-worker.ts does it: page by page into an empty desk, then the REINDEX.
  const desk = path.join(dir, 'new-desk.sqlite');
  openDatabase(desk).close();
  const db = new Database(desk);
  db.exec(`ATTACH DATABASE '${file}' AS snap`);
  db.exec('BEGIN IMMEDIATE');
  for (const name of bulkTriggers(false).keys()) db.exec(`DROP TRIGGER IF EXISTS main.${name}`);
  let t = performance.now();
  db.exec('INSERT INTO main.collections SELECT * FROM snap.collections');
  db.exec('INSERT INTO main.collection_events SELECT * FROM snap.collection_events');
  console.log(`copy (transfer) of both tables: ${(performance.now() - t).toFixed(0)} ms`);
  for (const table of ['collections', 'collection_events']) {
    t = performance.now();
    db.exec(`REINDEX main.${table}`);
    console.log(`REINDEX ${table}: ${(performance.now() - t).toFixed(0)} ms`);
  }
  db.exec('ROLLBACK');
  db.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
