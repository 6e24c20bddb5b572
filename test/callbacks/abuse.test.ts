// Abuse of the callback receiver over real HTTP on 127.0.0.1: floods of bad requests cost counters, not
// storage; a source over its rate gets 429; a client trickling a body is disconnected.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { startCallbackReceiver, type CallbackReceiver } from '../../main/callbacks/receiver.js';
import { listSecurityLog, truncateSample } from '../../main/callbacks/security-log.js';
import { getCollection } from '../../main/collections/query.js';
import { systemClock } from '../../main/clock.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from './support.js';
import { sqliteCallbackStore } from '../../main/callbacks/callback-store.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let db: Db;
let rx: CallbackReceiver | undefined;
afterEach(async () => {
  await rx?.close();
  rx = undefined;
  db?.close();
});

async function start(more: Partial<Parameters<typeof startCallbackReceiver>[0]> = {}) {
  db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
  rx = await startCallbackReceiver({
    db,
    store: sqliteCallbackStore(db, ledger),
    clock: systemClock,
    getKeys: () => ({ signingKey: SIGNING_KEY }),
    port: 0,
    ...more,
  });
  return rx;
}

/** The database's footprint on disk: main file plus WAL after a checkpoint. */
function diskBytes(): number {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return size(db.name) + size(db.name + '-wal');
}

/** Sends n requests, `parallel` at a time, and returns their status codes. */
async function flood(
  n: number,
  parallel: number,
  make: (i: number) => { body: string; headers: Record<string, string> },
): Promise<Map<number, number>> {
  const codes = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const { body, headers } = make(next++);
        const res = await fetch(rx!.url, { method: 'POST', body, headers });
        await res.arrayBuffer();
        codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return codes;
}

describe('callback receiver under abuse', () => {
  it('10,000 bad-signature requests naming a real collection: 401s, counted, the database grows < 100 KB, the collection unchanged', async () => {
    await start();
    const id = insertCollection(db, { reference: 'MD-A-00000001' });
    const before = getCollection(db, id)!.collection;
    const start0 = diskBytes();
    const codes = await flood(10_000, 16, (i) => {
      const body = callbackBody('MD-A-00000001', 'COMPLETED', { id: i });
      return {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body, 'forged-' + i) },
      };
    });
    expect([...codes]).toEqual([[401, 10_000]]);
    await rx!.close();
    rx = undefined;
    const grown = diskBytes() - start0;
    expect(grown).toBeLessThan(100_000);
    expect(listSecurityLog(db).totals).toEqual({ bad_signature: 10_000 });
    const after = getCollection(db, id)!;
    expect(after.collection).toEqual(before);
    expect(after.events).toEqual([]);
  }, 90_000); // 10,000 requests: slow on a busy machine, not a timing check

  it('500 unsigned requests of 60 KiB: the database grows < 100 KB, samples are at most 3 of 512 bytes', async () => {
    await start();
    const start0 = diskBytes();
    const codes = await flood(500, 8, (i) => ({
      body: JSON.stringify(
        callbackBody('MD-A-' + String(i).padStart(8, '0'), 'COMPLETED', {
          status_message: 'x'.repeat(60 * 1024 - 600),
        }),
      ),
      headers: { 'content-type': 'application/json' },
    }));
    expect([...codes]).toEqual([[401, 500]]);
    await rx!.close();
    rx = undefined;
    expect(diskBytes() - start0).toBeLessThan(100_000);
    const log = listSecurityLog(db);
    expect(log.totals).toEqual({ missing_signature: 500 });
    for (const r of log.rows) {
      expect(r.samples.length).toBeLessThanOrEqual(3);
      for (const s of r.samples) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(512);
    }
  });

  it('a source over its rate gets 429 with Retry-After, counted and not stored', async () => {
    await start({ rateLimit: { loopbackPerSecond: 1, loopbackBurst: 5 } });
    const body = callbackBody('MD-A-00000009');
    const codes = await flood(12, 1, () => ({
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body) },
    }));
    expect(codes.get(200)).toBeGreaterThanOrEqual(5);
    expect(codes.get(429)).toBeGreaterThanOrEqual(1);
    const res = await fetch(rx!.url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await rx!.close();
    rx = undefined;
    expect(listSecurityLog(db).totals.rate_limited).toBe((codes.get(429) ?? 0) + 1);
    // One stored event (the rest of the 200s were duplicates), nothing for the refused ones.
    expect(db.prepare('SELECT count(*) AS n FROM collection_events').get()).toEqual({ n: 1 });
  });

  it('a client trickling its body is disconnected after the request time-out', async () => {
    await start({ timeouts: { requestTimeoutMs: 600, headersTimeoutMs: 600, idleTimeoutMs: 10_000 } });
    const { port } = rx!;
    const sockets = Array.from({ length: 20 }, () => {
      const s = net.connect(port, '127.0.0.1');
      const closed = new Promise<void>((resolve) => s.on('close', () => resolve()));
      s.on('error', () => {});
      s.write(
        `POST /callbacks/collections HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 10000\r\n\r\n{`,
      );
      // A byte every 100 ms: never idle, never done.
      const t = setInterval(() => s.writable && s.write(' '), 100);
      return { s, t, closed };
    });
    try {
      // Closed by the server, well before the 10 s idle time-out would do it.
      await Promise.all(sockets.map((x) => x.closed));
      expect(sockets.every((x) => x.s.destroyed)).toBe(true);
    } finally {
      for (const x of sockets) {
        clearInterval(x.t);
        x.s.destroy();
      }
    }
  });

  it('a sample never holds more than 512 bytes, even cut inside multi-byte characters', () => {
    const s = truncateSample('é'.repeat(1000));
    expect(Buffer.byteLength(s)).toBeLessThanOrEqual(512);
    expect(s.endsWith('...')).toBe(true);
  });
});
