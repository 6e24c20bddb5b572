// What the tests of a new desk's start (bulk replay, snapshot) share: a generated team history with
// every kind of event the projection and reconciliation tell apart, and a desk's whole record to compare.
import type { Db } from '../../main/store/sqlite/connection.js';
import type { NewTeamEvent } from '../../main/team/events.js';

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
 * another currency, amount only in the payload, unsigned), imports, security events, resolutions, and
 * orphans (one of them answered before its intent arrives). No person's status: the team database
 * refuses one since team migration 13 (test/team/resolutions.test.ts takes one from an older record).
 */
export function history(n: number, prefix: string, seed: number): NewTeamEvent[] {
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
    if (cb >= 0.12 && cb < 0.15)
      add(at + 9_000_000, { eventKey: `resolution:${ref}`, source: 'manual', kind: 'resolution', signature: 'not_applicable', note: 'checked with the bank' }); // prettier-ignore
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.e);
}

/** Everything a desktop's record holds, ids included; reconciliation without the time it was computed. */
export function record(db: Db) {
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
export function schema(db: Db) {
  return db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index', 'trigger') ORDER BY type, name",
    )
    .all();
}
