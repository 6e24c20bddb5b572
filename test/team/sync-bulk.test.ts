// A new desktop's bulk start (main/team/sync/bulk.ts) against the incremental path on a real
// PostgreSQL: the same generated history, with every kind of event, caught up both ways into fresh
// SQLite files gives the same collections, history and reconciliation, row for row; so does a copy
// cut short and restarted, and events written while the copy runs arrive after it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/db.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { startTeamSync, type TeamSync, type TeamSyncOptions } from '../../main/team/sync.js';
import { lastSeq } from '../../main/team/sync/apply.js';
import { wantsBulkStart } from '../../main/team/sync/bulk.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { quietLogger } from './sync-desk.js';

let team: TeamFixture;
const dirs: string[] = [];

beforeAll(async () => {
  team = await teamFixture();
});
afterAll(async () => {
  await team?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const T0 = 1_760_000_000_000;

/**
 * A history of `n` collections, interleaved in time as a busy team writes it: intents, every
 * initiate answer, redirects (some unverified), callbacks (repeated, flipped, disagreeing, short,
 * another currency, amount only in the payload, unsigned), imports, security events, resolutions and
 * manual statuses, and orphans (one of them answered before its intent arrives).
 */
function history(n: number, prefix: string, seed: number): NewTeamEvent[] {
  const rand = rng(seed);
  const out: { at: number; e: NewTeamEvent }[] = [];
  const CUR = ['UGX', 'KES', 'TZS', 'USD'];
  for (let i = 1; i <= n; i++) {
    const ref = `${prefix}-${i}`;
    const internal = `INT-${ref}`;
    const created = T0 + i * 40_000;
    const cur = CUR[i % CUR.length]!;
    const amount = 1000 + Math.floor(rand() * 100_000);
    const add = (dt: number, e: Omit<NewTeamEvent, 'merchantReference' | 'occurredAt'>) =>
      out.push({ at: created + dt, e: { merchantReference: ref, occurredAt: created + dt, ...e } });
    const r = rand();
    const orphanFirst = r >= 0.99;
    if (r >= 0.98 && r < 0.99) {
      // An orphan: a callback for a reference no desktop ever saved.
      add(5_000, {
        eventKey: `callback:${ref}:COMPLETED`,
        source: 'callback',
        kind: 'outcome',
        status: 'COMPLETED',
        amountMinor: amount,
        currency: cur,
        signature: 'verified',
        payload: `{"merchant_reference":"${ref}"}`,
        internalReference: internal,
      });
      continue;
    }
    add(orphanFirst ? 9_000 : 0, {
      eventKey: `intent:${ref}`,
      source: 'intent',
      kind: 'intent',
      status: 'INTENT',
      amountMinor: amount,
      currency: cur,
      signature: 'not_applicable',
      payload: JSON.stringify({
        description: `Order ${i}`,
        createdAt: created,
        customerName: i % 3 ? 'Amina Hassan' : null,
        customerEmail: i % 5 ? null : 'amina@example.com',
        chargeCustomer: i % 7 === 0,
        allowFinalStatusChange: i % 11 !== 0,
        operator: `op${i % 4}`,
        providerCode: `CARD_${cur}`,
        redirectUrl: 'https://merchant-desk.invalid/return',
        cardBrand: i % 2 ? 'visa' : null,
        cardLast4: i % 2 ? '4242' : null,
      }),
    });
    const init = rand();
    if (init < 0.04) {
      add(800, { eventKey: `init:${ref}`, source: 'initiate', kind: 'initialize_rejected', status: 'REJECTED', signature: 'not_applicable', payload: '{"http_status":400}' }); // prettier-ignore
      continue;
    }
    if (init < 0.08) {
      add(30_000, { eventKey: `init:${ref}`, source: 'initiate', kind: 'initialize_unknown', status: 'UNKNOWN', signature: 'not_applicable' }); // prettier-ignore
      if (init < 0.06)
        add(60_000, { eventKey: `init2:${ref}`, source: 'initiate', kind: 'initialize_exists', status: 'PENDING', signature: 'not_applicable', internalReference: internal }); // prettier-ignore
    } else {
      add(900, {
        eventKey: `init:${ref}`,
        source: 'initiate',
        kind: 'initialize_accepted',
        status: 'PENDING',
        signature: 'not_applicable',
        internalReference: internal,
        paymentUrl: `https://pay.example.invalid/${ref}`,
        payload: `{"http_status":202,"payment_url":"https://pay.example.invalid/${ref}"}`,
      });
    }
    const w = rand();
    if (w < 0.1) continue; // still pending
    const final = w < 0.7 ? 'COMPLETED' : w < 0.85 ? 'FAILED' : 'CANCELLED';
    const at = 60_000 + Math.floor(rand() * 100_000);
    const rd = rand();
    if (rd < 0.5) {
      const says = rd < 0.05 ? (final === 'COMPLETED' ? 'FAILED' : 'COMPLETED') : final;
      add(at, { eventKey: `redirect:${ref}`, source: 'redirect', kind: 'outcome', status: says, signature: rd >= 0.05 && rd < 0.1 ? 'invalid' : 'verified', internalReference: internal }); // prettier-ignore
    } else if (rd < 0.55) add(at, { eventKey: `redirect:${ref}`, source: 'redirect', kind: 'window_closed', signature: 'not_applicable' }); // prettier-ignore
    const cb = rand();
    const seen = cb < 0.03 ? amount - 1 : amount;
    const callback = (dt: number, status: string, key: string, over: Partial<NewTeamEvent> = {}) =>
      add(at + dt, {
        eventKey: key,
        source: 'callback',
        kind: 'outcome',
        status,
        amountMinor: seen,
        currency: cb >= 0.03 && cb < 0.05 ? 'EUR' : cur,
        signature: 'verified',
        payload: `{"merchant_reference":"${ref}","transaction_status":"${status}"}`,
        internalReference: internal,
        statusMessage: status === 'COMPLETED' ? 'Approved' : 'Declined',
        ...over,
      });
    if (cb < 0.9) callback(2_000, final, `callback:${ref}:${final}`, cb >= 0.05 && cb < 0.07 ? { amountMinor: null } : {}); // prettier-ignore
    if (cb >= 0.07 && cb < 0.12) callback(4_000, final, `callback:${ref}:${final}:again`); // the same answer twice
    if (cb >= 0.12 && cb < 0.17) callback(600_000, final === 'COMPLETED' ? 'FAILED' : 'COMPLETED', `callback:${ref}:flip`); // prettier-ignore
    if (cb >= 0.17 && cb < 0.2) callback(3_000, final, `callback:${ref}:unsigned`, { signature: 'missing' });
    if (cb >= 0.9 && cb < 0.95)
      add(at + 86_400_000, { eventKey: `import:${ref}`, source: 'import', kind: 'outcome', status: final, amountMinor: amount, currency: cur, signature: 'verified', internalReference: internal }); // prettier-ignore
    if (cb >= 0.2 && cb < 0.23)
      add(at + 5_000, { eventKey: `security:${ref}`, source: 'security', kind: 'bad_signature', status: final, signature: 'invalid', payload: '{"forged":true}' }); // prettier-ignore
    if (cb >= 0.95)
      add(at + 7_200_000, { eventKey: `manual:${ref}`, source: 'manual', kind: 'manual_status', status: final, signature: 'not_applicable', note: 'confirmed by phone' }); // prettier-ignore
    if (cb >= 0.12 && cb < 0.15)
      add(at + 9_000_000, { eventKey: `resolution:${ref}`, source: 'manual', kind: 'resolution', signature: 'not_applicable', note: 'checked with the bank' }); // prettier-ignore
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.e);
}

async function write(events: readonly NewTeamEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) await appendEvents(team.owner, events.slice(i, i + 1000));
}

interface Desktop {
  file: string;
  db: Db;
  sync: TeamSync;
}

function desktop(over: Partial<TeamSyncOptions> = {}, file?: string): Desktop {
  if (!file) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-teambulk-'));
    dirs.push(dir);
    file = path.join(dir, 'desk.sqlite');
  }
  const db = openDatabase(file);
  const sync = startTeamSync({
    pool: team.owner,
    db,
    clock: systemClock,
    logger: quietLogger,
    pollEveryMs: 600_000,
    batchSize: 300,
    bulkChunk: 700,
    ...over,
  });
  return { file, db, sync };
}

async function shut(d: Desktop): Promise<void> {
  await d.sync.close();
  d.db.close();
}

/** Everything a desktop's record holds, ids included; reconciliation without the time it was computed. */
function record(db: Db) {
  return {
    collections: db.prepare('SELECT * FROM collections ORDER BY id').all(),
    events: db.prepare('SELECT * FROM collection_events ORDER BY id').all(),
    reconciliation: db
      .prepare('SELECT * FROM reconciliation ORDER BY collection_id')
      .all()
      .map((r) => {
        const { computed_at: _at, ...rest } = r as Record<string, unknown>;
        return rest;
      }),
    indexes: db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all(),
  };
}

/** The schema as sqlite_master holds it: tables, indexes and triggers, by name (root pages aside). */
function schema(db: Db) {
  return db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index', 'trigger') ORDER BY type, name",
    )
    .all();
}

/** A freshly migrated desk's schema: what a bulk start must leave behind, its dropped triggers and indexes made again. */
function migratedSchema() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-teambulk-'));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, 'fresh.sqlite'));
  const s = schema(db);
  db.close();
  return s;
}

describe('bulk start of a new team desktop', () => {
  let reference: ReturnType<typeof record>;

  it('copies the history as the incremental path applies it, and takes what arrives during the copy after', async () => {
    const main = history(2000, 'MD-BULK', 7);
    const late = history(40, 'MD-LATE', 8);
    await write(main);
    await write([
      // An intent written twice (two desktops racing) is one event; so is a repeated callback.
      ...main.slice(0, 5),
    ]);

    let during: Promise<void> | undefined;
    const copied: number[] = [];
    const bulk = desktop({ onCopied: (n) => copied.push(n) });
    expect(wantsBulkStart(bulk.db)).toBe(true);
    const seen: number[] = [];
    bulk.sync.onStatus((s) => {
      if (s.catchingUp) {
        seen.push(s.catchingUp.copiedSeq);
        during ??= write(late);
      }
    });
    await bulk.sync.pullNow();
    await during;
    await bulk.sync.pullNow();
    expect(seen.length).toBeGreaterThan(3);
    expect(bulk.sync.status().catchingUp).toBeNull();
    // The screens are told once, when the copy is done (not once per collection).
    expect(copied).toHaveLength(1);
    expect(copied[0]).toBeGreaterThan(2000);

    const incremental = desktop({ bulkStart: false });
    await incremental.sync.pullNow();
    const total = Number((await team.owner.query<{ n: string }>('SELECT count(*) AS n FROM team.events')).rows[0]!.n);
    expect(lastSeq(bulk.db, 'events')).toBe(lastSeq(incremental.db, 'events'));

    reference = record(incremental.db);
    expect(reference.events.length).toBe(total);
    expect(reference.collections.length).toBeGreaterThan(1900);
    const got = record(bulk.db);
    expect(got.indexes).toEqual(reference.indexes);
    const fresh = migratedSchema();
    expect(fresh.some((r) => (r as { name: string }).name === 'collection_events_no_replace_key')).toBe(true);
    expect(schema(bulk.db)).toEqual(fresh);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    expect(got.reconciliation).toEqual(reference.reconciliation);

    // The history really has every case the projection rules tell apart.
    const kinds = new Set(reference.events.map((e) => (e as { kind: string }).kind));
    for (const k of ['final_status_changed', 'resolution', 'manual_status', 'bad_signature', 'window_closed'])
      expect(kinds).toContain(k);
    expect(reference.events.some((e) => (e as { collection_id: number | null }).collection_id === null)).toBe(true);
    const flags = new Set(reference.collections.map((c) => (c as { flags: number }).flags));
    for (const f of [1, 2, 4, 8, 16]) expect([...flags].some((x) => x & f)).toBe(true);
    await Promise.all([shut(bulk), shut(incremental)]);
  });

  it('a copy cut short starts over on restart, skipping what it stored, and ends equal', async () => {
    const first = desktop();
    // A chunk that fails part way (a full disk, a crash) commits nothing of itself.
    const key = (reference.events[2500] as { dedupe_key: string }).dedupe_key;
    first.db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON collection_events WHEN NEW.dedupe_key = '${key}'
                   BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`);
    await expect(first.sync.pullNow()).rejects.toThrow(/disk trouble/);
    const stored = first.db.prepare('SELECT count(*) FROM collection_events').pluck().get() as number;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(reference.events.length);
    expect(stored % 700).toBe(0); // whole chunks only
    expect(lastSeq(first.db, 'events')).toBe(0);
    first.db.exec('DROP TRIGGER refuse');
    await shut(first);

    const again = desktop({}, first.file);
    expect(wantsBulkStart(again.db)).toBe(true);
    await again.sync.pullNow();
    const got = record(again.db);
    expect(got.collections).toEqual(reference.collections);
    expect(got.events).toEqual(reference.events);
    expect(got.reconciliation).toEqual(reference.reconciliation);
    expect(got.indexes).toEqual(reference.indexes);
    expect(schema(again.db)).toEqual(migratedSchema());

    // Stopped after the seq was recorded but before the reconciliation finished: the next start finishes it.
    again.db.exec('DELETE FROM reconciliation WHERE collection_id > 700');
    await shut(again);
    const third = desktop({}, first.file);
    expect(wantsBulkStart(third.db)).toBe(false);
    await third.sync.pullNow();
    expect(record(third.db).reconciliation).toEqual(reference.reconciliation);
    await shut(third);
  });
});
