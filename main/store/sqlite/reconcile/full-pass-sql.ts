// One file: the full pass's statement and the bit encoding it is built from; split, they would be read side by side.
// The classification of main/reconcile/classify.ts as one SQL statement over a range of collection ids,
// for the full pass: SQLite aggregates each collection's events in one pass over the covering index of
// migration 014 (each event's terms, indexed) and writes the reconciliation rows itself, so no event row
// crosses into JavaScript. classify.ts stays the definition of the rules (and the incremental path);
// this is their set-based form, kept here with the rest of the SQL, and the property test in
// test/reconcile proves both agree. The kinds' names and priority order, which the masks below encode
// as bits, are the table's vocabulary (kinds.shared.ts), shared with the rules.
//
// One case stays in JavaScript: a callback-side outcome whose amount is only in its payload (amount_minor
// NULL, payload present) needs the currency's decimal rules (toMinor). Such collections are flagged by
// NEEDS_JS_SQL (a partial index of migration 008 finds them) and re-classified by classify() in the same
// transaction.
import { RECON_KINDS, isExceptionKind, type ReconKind } from './kinds.shared.js';
import { NOT_MATCHED } from '../read/filters.js';

/** Bit of each kind in the masks below: RECON_KINDS order, so the lowest set bit is the primary outcome. */
const bit = (k: ReconKind): number => 1 << RECON_KINDS.indexOf(k);

/** Status codes (initiate's status in v2); 15: any other status, which classify() decides. */
const STATUS_CODES: Record<string, number> = {
  PENDING: 1,
  REJECTED: 2,
  UNKNOWN: 3,
  COMPLETED: 4,
  FAILED: 5,
  CANCELLED: 6,
  INTENT: 7,
};
const OTHER_STATUS = 15;
const INIT_KIND_CODES: Record<string, number> = {
  initialize_accepted: 1,
  initialize_exists: 2,
  initialize_unknown: 3,
  initialize_rejected: 4,
};

// Most collections have at most one status per source and no resolution. For them a few aggregates
// decide everything: counts per event class and status, packed four bits each into two integers (SUM),
// the last event id, one packed time, and the last callback's status (cb_last: id * 4 + status), so that a
// callback that changed its answer (final_status_changed, about 1% of collections) is decided here too.
// Any other collection (a resolution, several initiate events, a redirect, import or person that
// changed its answer, more than 15 events, an unusual status) is marked here and classified by
// classify() afterwards, in the same transaction.
const FIELD = {
  // v1
  resolution: 0,
  bad: 1,
  initiate: 2,
  redirect: 3, // 3 COMPLETED, 4 FAILED, 5 CANCELLED
  callback: 6, // 6..8
  import: 9, // 9..11
  currencyMismatch: 12,
  amountMismatch: 13,
  // v2
  manual: 0, // 0..2
  initKind: 3,
  initStatus: 4,
  total: 5, // unbounded: the last field
} as const;
/** 2 ** (4 * field): one count in a field (v1 reaches bit 55, beyond 32-bit shifts in JavaScript). */
const unit = (field: number): number => 2 ** (4 * field);

/**
 * `col` equal to one of `values`, as comparisons: in an index expression SQLite evaluates an IN list of
 * three or more constants through a temporary table per row, several times slower to build and insert.
 */
const oneOf = (col: string, values: string[]) => `(${values.map((v) => `${col} = '${v}'`).join(' OR ')})`;

/**
 * Each event's class: 1 resolution, 2 unverified report, 3 initiate, and verified final outcomes from
 * 4 manual, 5 redirect, 6 callback, 7 import (0: none of these). `p` is the table prefix.
 */
const eventClass = (p: string) => `CASE
    WHEN ${p}kind = 'resolution' THEN 1
    WHEN ${p}source = 'security' OR ${p}kind = 'bad_signature'
      OR (${oneOf(`${p}signature`, ['invalid', 'missing'])} AND ${oneOf(`${p}source`, ['redirect', 'callback', 'import'])}) THEN 2
    WHEN ${p}source = 'initiate' THEN 3
    WHEN ${oneOf(`${p}kind`, ['outcome', 'final_status_changed', 'manual_status'])} AND ${oneOf(`${p}status`, ['COMPLETED', 'FAILED', 'CANCELLED'])}
      THEN CASE ${p}source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END`;
/** A final status's count in its source's field: COMPLETED, FAILED, CANCELLED are its three nibbles. */
const finalUnit = (p: string) => `CASE ${p}status WHEN 'COMPLETED' THEN 1 WHEN 'FAILED' THEN 16 ELSE 256 END`;
const statusCode = (p: string) =>
  `CASE WHEN ${p}status IS NULL THEN 0 ${Object.entries(STATUS_CODES)
    .map(([s, n]) => `WHEN ${p}status = '${s}' THEN ${n}`)
    .join(' ')} ELSE ${OTHER_STATUS} END`;
const initKindCode = (p: string) =>
  `CASE ${p}kind ${Object.entries(INIT_KIND_CODES)
    .map(([k, n]) => `WHEN '${k}' THEN ${n}`)
    .join(' ')} ELSE 0 END`;

/** Packed times (below): a callback-side COMPLETED sorts above every initiate time. */
const COMPLETED_BASE = 2 ** 50;

/**
 * What each event adds to the aggregates, as expressions of its own columns only, so that migration 014
 * indexes them and the full recompute sums index columns instead of evaluating CASE trees per event:
 * - v1: its count in the v1 fields (class, source and final status), without the amount and currency
 *   mismatches, which need the collection's row (cur and amt below);
 * - v2: its count in the v2 fields (a person's status, the initiate kind and status) plus one in total;
 * - t: an initiate's time, or COMPLETED_BASE minus a callback-side COMPLETED's time. MAX(t) is then
 *   either the first COMPLETED (when there is one) or the last initiate time: a collection needs the
 *   latter only while it awaits an outcome, which it never does once the callback side has reported;
 * - cb: a callback's id * 4 + its final status (0..2), for the last callback's status;
 * - cur, amt: a callback-side outcome's currency and amount (NULL for any other event).
 * `p` is the table prefix: '' in the index, 'e.' in the statement (SQLite matches the two).
 */
function eventTermsSql(p: string): { v1: string; v2: string; t: string; cb: string; cur: string; amt: string } {
  const cls = eventClass(p);
  const fin = finalUnit(p);
  return {
    v1: `(CASE ${cls} WHEN 1 THEN ${unit(FIELD.resolution)} WHEN 2 THEN ${unit(FIELD.bad)} WHEN 3 THEN ${unit(FIELD.initiate)}
    WHEN 5 THEN ${unit(FIELD.redirect)} * ${fin} WHEN 6 THEN ${unit(FIELD.callback)} * ${fin} WHEN 7 THEN ${unit(FIELD.import)} * ${fin}
    ELSE 0 END)`,
    v2: `(CASE ${cls} WHEN 3 THEN ${initKindCode(p)} * ${unit(FIELD.initKind)} + (${statusCode(p)}) * ${unit(FIELD.initStatus)}
    WHEN 4 THEN ${unit(FIELD.manual)} * ${fin} ELSE 0 END + ${unit(FIELD.total)})`,
    t: `(CASE ${cls} WHEN 3 THEN ${p}received_at WHEN 6 THEN CASE WHEN ${p}status = 'COMPLETED' THEN ${COMPLETED_BASE} - ${p}received_at END
    WHEN 7 THEN CASE WHEN ${p}status = 'COMPLETED' THEN ${COMPLETED_BASE} - ${p}received_at END END)`,
    cb: `(CASE WHEN ${cls} = 6 THEN ${p}id * 4 + CASE ${p}status WHEN 'COMPLETED' THEN 0 WHEN 'FAILED' THEN 1 ELSE 2 END END)`,
    cur: `(CASE WHEN ${cls} >= 6 THEN ${p}currency END)`,
    amt: `(CASE WHEN ${cls} >= 6 THEN ${p}amount_minor END)`,
  };
}

/**
 * The covering index the full recompute reads (migration 014 holds this text, written out, and a test
 * checks that the two agree): (collection_id, id) first, so per-collection reads use it too.
 */
export function reconcileIndexSql(): string {
  const t = eventTermsSql('');
  return `CREATE INDEX collection_events_reconcile_terms ON collection_events (collection_id, id,
  ${t.v1},
  ${t.v2},
  ${t.t},
  ${t.cb},
  ${t.cur},
  ${t.amt})`;
}

const T = eventTermsSql('e.');

// Per event: index columns only. The mismatches compare a callback-side outcome's currency and amount
// (NULL for every other event, so both WHENs fail at once) with the collection's.
const AGGREGATE = `
SELECT c.id AS cid, c.created_at,
  MAX(e.id) AS last_id,
  COALESCE(SUM(${T.v1} + CASE WHEN ${T.cur} <> c.currency THEN ${unit(FIELD.currencyMismatch)}
    WHEN ${T.amt} <> c.amount_minor THEN ${unit(FIELD.amountMismatch)} ELSE 0 END), 0) AS v1,
  COALESCE(SUM(${T.v2}), 0) AS v2,
  MAX(${T.t}) AS t,
  MAX(${T.cb}) AS cb_last
FROM collections c
LEFT JOIN collection_events e ON e.collection_id = c.id
WHERE c.id BETWEEN @lo AND @hi
GROUP BY c.id`;

const f1 = (field: number, offset = 0) => `((v1 >> ${4 * (field + offset)}) & 15)`;
const f2 = (field: number, offset = 0) => `((v2 >> ${4 * (field + offset)}) & 15)`;
/** The one final status of a source's three counts as 0 none, 1..3 COMPLETED/FAILED/CANCELLED; 9 when several. */
const single = (f: (field: number, offset?: number) => string, field: number, v: 'v1' | 'v2') =>
  // Nearly every source said nothing or said one thing once: one CASE on the source's 12 bits decides
  // those without evaluating the three counts (this pass runs once per collection, a million times).
  `(CASE (${v} >> ${4 * field}) & 4095 WHEN 0 THEN 0 WHEN 1 THEN 1 WHEN 16 THEN 2 WHEN 256 THEN 3 ELSE
    CASE WHEN ${f(field)} > 0 THEN 1 ELSE 0 END + CASE WHEN ${f(field, 1)} > 0 THEN 2 ELSE 0 END + CASE WHEN ${f(field, 2)} > 0 THEN 3 ELSE 0 END
    + CASE WHEN (${f(field)} > 0) + (${f(field, 1)} > 0) + (${f(field, 2)} > 0) > 1 THEN 9 ELSE 0 END END)`;

/** The final statuses a source reported, as bits: 1 COMPLETED, 2 FAILED, 4 CANCELLED. */
const statusSet = (f: (field: number, offset?: number) => string, field: number) =>
  `(CASE (v1 >> ${4 * field}) & 4095 WHEN 0 THEN 0 WHEN 1 THEN 1 WHEN 16 THEN 2 WHEN 256 THEN 4 ELSE
    (${f(field)} > 0) + 2 * (${f(field, 1)} > 0) + 4 * (${f(field, 2)} > 0) END)`;

// Per distinct pair of counters (v1, v2), not per collection: a million collections share a few hundred
// pairs, and everything below but the stale time depends on the pair alone. Each source's single
// status, and whether classify() must decide.
const DERIVED = `
SELECT v1, v2,
  ${single(f1, FIELD.redirect, 'v1')} AS red, ${single(f1, FIELD.callback, 'v1')} AS cb, ${single(f1, FIELD.import, 'v1')} AS imp,
  ${single(f2, FIELD.manual, 'v2')} AS man, ${statusSet(f1, FIELD.callback)} AS cb_set,
  ${f1(FIELD.bad)} AS bad, ${f1(FIELD.currencyMismatch)} AS cur, ${f1(FIELD.amountMismatch)} AS amt,
  ${f1(FIELD.initiate)} AS inits, ${f2(FIELD.initKind)} AS init_kind, ${f2(FIELD.initStatus)} AS init_st,
  (v2 >> ${4 * FIELD.total}) AS total,
  (v2 >> ${4 * FIELD.total}) > 15 OR ${f1(FIELD.resolution)} > 0 OR ${f1(FIELD.initiate)} > 1 OR ${f2(FIELD.initStatus)} = ${OTHER_STATUS}
    OR ${f1(FIELD.callback)} + ${f1(FIELD.import)} > 1 AS complex
FROM (SELECT DISTINCT v1, v2 FROM a)`;

// The kinds (cb/imp/red/man: 0 none, 1..3 a status, >= 9 several). Several statuses from a redirect,
// an import or a person, and callback and import disagreeing, leave the collection to classify().
// The callback side's statuses as bits (callback and import disagreeing is left to classify()).
const SIDE_SET = `(CASE WHEN cb > 0 THEN cb_set WHEN imp > 0 THEN 1 << (imp - 1) ELSE 0 END)`;
const confirmed = `(cb > 0 OR imp > 0 OR man > 0)`;
const awaiting = `(NOT ${confirmed} AND (inits = 0 OR init_kind NOT IN (3, 4)))`;
/** Whether the stale time runs from the initiate event (else from the collection's creation). */
const fromInit = `(inits = 1 AND init_kind IN (1, 2, 3))`;
/** The kinds decided by the pair alone: every one but the two the clock decides (pending, stale_pending). */
const PRESENT: Record<Exclude<ReconKind, 'pending' | 'stale_pending'>, string> = {
  currency_mismatch: 'cur > 0',
  amount_mismatch: 'amt > 0',
  bad_signature: 'bad > 0',
  // A redirect status that no callback-side report shares (the redirect's single status: red < 9).
  redirect_callback_disagree: `red > 0 AND ${SIDE_SET} > 0 AND (${SIDE_SET} & (1 << (red - 1))) = 0`,
  // The callback said two final statuses (any other source that did is left to classify()).
  final_status_changed: 'cb >= 9',
  unknown_outcome: `NOT ${confirmed} AND inits = 1 AND init_kind = 3`,
  rejected: `NOT ${confirmed} AND inits = 1 AND init_kind = 4`,
  matched: '0',
};
const presentMask = Object.entries(PRESENT)
  .map(([k, cond]) => `(CASE WHEN ${cond} THEN ${bit(k as ReconKind)} ELSE 0 END)`)
  .join(' | ');

const FINAL_NAME = `CASE %s WHEN 1 THEN 'COMPLETED' WHEN 2 THEN 'FAILED' WHEN 3 THEN 'CANCELLED' END`;
const finalName = (x: string) => FINAL_NAME.replace('%s', x);
const initName = `CASE init_st ${Object.entries(STATUS_CODES)
  .map(([s, n]) => `WHEN ${n} THEN '${s}'`)
  .join(' ')} END`;

// Per pair: the kinds it decides, whether it awaits an outcome (then the clock decides pending or
// stale_pending) and from when, and the statuses' names.
const MASKS = `
SELECT v1, v2, (${presentMask}) AS present, ${awaiting} AS awaiting, ${fromInit} AS from_init, total = 0 AS no_events,
  complex OR red >= 9 OR imp >= 9 OR man >= 9 OR (cb > 0 AND imp > 0 AND cb <> imp) AS undecided,
  ${initName} AS initiate_status, ${finalName('red')} AS redirect_status, ${finalName('imp')} AS import_status,
  ${finalName('man')} AS manual_status
FROM d`;

/** When an awaiting collection turns stale (NULL for any other). */
const staleAt = `(CASE WHEN k.awaiting THEN CASE WHEN k.from_init THEN a.t ELSE a.created_at END + @stale END)`;

/** A collection with no event at all that turned stale has nothing to resolve: the kind is not open. */
const NO_EVENTS = 1 << RECON_KINDS.length;

/**
 * Every set of kinds the statement can produce, keyed by its mask (plus NO_EVENTS), with the columns
 * derived from it exactly as classify() derives them: a lookup per collection instead of a dozen
 * string expressions. A temporary table of the connection, filled once.
 */
export function kindSetsSql(): string[] {
  const rows: string[] = [];
  for (let key = 0; key < 2 * NO_EVENTS; key++) {
    const mask = key & (NO_EVENTS - 1) || bit('matched');
    const kinds = RECON_KINDS.filter((k) => mask & bit(k));
    const open = kinds.filter((k) => isExceptionKind(k) && !(key & NO_EVENTS && k === 'stale_pending'));
    rows.push(
      `(${key}, '${kinds[0]}', '${JSON.stringify(kinds)}', '${JSON.stringify(open)}', ${open.length > 0 ? 1 : 0})`,
    );
  }
  return [
    'CREATE TEMP TABLE IF NOT EXISTS recon_kind_sets (key INTEGER PRIMARY KEY, outcome TEXT, kinds TEXT, open_kinds TEXT, is_exception INTEGER)',
    `INSERT OR IGNORE INTO temp.recon_kind_sets VALUES ${rows.join(', ')}`,
  ];
}

/** Marks a collection for classify(): never visible outside the transaction that writes it. */
const UNDECIDED = '?';

export const COLUMNS = `collection_id, outcome, kinds, open_kinds, is_exception, last_event_id, computed_at, stale_at,
  resolved_by_event_id, resolution_note, initiate_status, redirect_status, callback_status, import_status, manual_status, completed_at`;

/** The reconciliation rows of every collection with lo <= id <= hi, in COLUMNS order (after its WITH). */
export const RANGE_WITH = `
WITH a AS MATERIALIZED (${AGGREGATE}),
  d AS NOT MATERIALIZED (${DERIVED}),
  k AS MATERIALIZED (${MASKS}),
  m AS NOT MATERIALIZED (SELECT a.cid, a.last_id, a.t, a.cb_last, k.*, ${staleAt} AS stale_time
    FROM a JOIN k ON k.v1 = a.v1 AND k.v2 = a.v2)`;
export const RANGE_SELECT = `
SELECT cid AS collection_id,
  CASE WHEN undecided THEN '${UNDECIDED}' ELSE ks.outcome END AS outcome, ks.kinds AS kinds,
  ks.open_kinds AS open_kinds, ks.is_exception AS is_exception,
  last_id AS last_event_id,
  @now AS computed_at,
  CASE WHEN @now < stale_time THEN stale_time END AS stale_at,
  NULL AS resolved_by_event_id,
  NULL AS resolution_note,
  initiate_status,
  redirect_status,
  ${finalName('(cb_last & 3) + 1')} AS callback_status,
  import_status,
  manual_status,
  CASE WHEN t >= ${COMPLETED_BASE / 2} THEN ${COMPLETED_BASE} - t END AS completed_at
FROM m JOIN temp.recon_kind_sets ks ON ks.key = m.present
  + CASE WHEN stale_time IS NULL THEN 0 WHEN @now >= stale_time THEN ${bit('stale_pending')} ELSE ${bit('pending')} END
  + CASE WHEN m.no_events THEN ${NO_EVENTS} ELSE 0 END`;

/** Every column a recompute may change, but computed_at (when the row last changed). */
export const COMPARED = [
  'outcome',
  'kinds',
  'open_kinds',
  'is_exception',
  'last_event_id',
  'stale_at',
  'resolved_by_event_id',
  'resolution_note',
  'initiate_status',
  'redirect_status',
  'callback_status',
  'import_status',
  'manual_status',
  'completed_at',
];

// A row that is already what the recompute found is left alone: a recompute of a reconciled database
// rewrites (and re-indexes, and logs in the WAL) only the collections whose result changed.
export const UPSERT = `
WHERE true
ON CONFLICT (collection_id) DO UPDATE SET computed_at = excluded.computed_at,
  ${COMPARED.map((c) => `${c} = excluded.${c}`).join(', ')}
WHERE ${COMPARED.map((c) => `reconciliation.${c} IS NOT excluded.${c}`).join(' OR ')}`;

/**
 * Upserts the reconciliation rows of every collection with lo <= id <= hi (only those that changed, so
 * the statement's changes are not the collections it covered). Parameters: @lo, @hi, @now,
 * @stale (stalePendingAfterMs). Rows written with outcome UNDECIDED, and the collections NEEDS_JS_SQL
 * lists, must then be classified by classify() in the same transaction.
 */
export const RECONCILE_RANGE_SQL = `${RANGE_WITH}
INSERT INTO reconciliation (${COLUMNS})${RANGE_SELECT}${UPSERT}`;

// NOT_MATCHED, the partial outcome index's condition word for word, is defined once beside the read
// models that also repeat it (read/filters.ts).
export { NOT_MATCHED };

/** The rows RECONCILE_RANGE_SQL left to classify() (the partial outcome index finds them). */
export const UNDECIDED_SQL = `SELECT collection_id FROM reconciliation WHERE ${NOT_MATCHED} AND outcome = '${UNDECIDED}' AND collection_id BETWEEN @lo AND @hi`;

/** The partial index's condition (migration 008): the planner uses it only for this exact text. */
export const PAYLOAD_ONLY_AMOUNT = "source IN ('callback', 'import') AND amount_minor IS NULL AND payload IS NOT NULL";

/**
 * A team desk's collections with an own event the team database refused: the SQL pass reads every event,
 * so the rules (which leave such an event out, histories.ts) classify these. Few or none: the outbox's
 * refused rows, not the events, are walked.
 */
const REFUSED_IN = (where: string) =>
  `SELECT e.collection_id FROM team_outbox o JOIN collection_events e ON e.id = o.event_id WHERE o.state = 'refused' AND ${where}`;

/** Collections in lo..hi that need classify(): a callback-side amount only in the payload, or a refused own event. */
export const NEEDS_JS_SQL = `
SELECT e.collection_id FROM collection_events e
WHERE e.collection_id BETWEEN @lo AND @hi AND ${PAYLOAD_ONLY_AMOUNT}
UNION ${REFUSED_IN('e.collection_id BETWEEN @lo AND @hi')}
ORDER BY 1`;

const RANGE = 'c.id BETWEEN @lo AND @hi';
// The group route is the range statement with its range replaced by the group's ids: it must select its
// collections by RANGE exactly once, or the replacement would classify other collections than the group's.
if (RECONCILE_RANGE_SQL.split(RANGE).length !== 2)
  throw new Error(
    `RECONCILE_RANGE_SQL must select its collections by "${RANGE}" exactly once (the group route replaces it)`,
  );

const IDS = 'SELECT value FROM json_each(@ids)';

/**
 * RECONCILE_RANGE_SQL over the collections of a JSON array of ids (@ids) instead of an id range: a
 * group's collections (the incremental path's group route). Parameters @ids, @now, @stale.
 */
export const RECONCILE_IDS_SQL: string = RECONCILE_RANGE_SQL.replace(RANGE, `c.id IN (${IDS})`);

/**
 * Of the collections of @ids: what RECONCILE_IDS_SQL left to classify(), and what needs it anyway (a
 * callback-side amount only in a payload).
 */
export const IDS_LEFT_TO_RULES_SQL = `SELECT collection_id FROM reconciliation WHERE collection_id IN (SELECT value FROM json_each(@ids)) AND outcome = '${UNDECIDED}'
           UNION SELECT collection_id FROM collection_events WHERE collection_id IN (SELECT value FROM json_each(@ids)) AND ${PAYLOAD_ONLY_AMOUNT}
           UNION ${REFUSED_IN('e.collection_id IN (SELECT value FROM json_each(@ids))')}`;
