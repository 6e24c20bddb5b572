// The row check's replay (verify.ts): the file's events, page by page in id order, put through what the
// bulk copy does with them (fromTeamEvent, intentFromTeamEvent, projectEvent), and every column of every
// event row and of every collection's intent row compared as it goes, types included. It keeps what the
// walk makes (each collection's id by reference, the projections folded so far, the ids reached, the
// signed events whose verdicts were taken as stored) for verify.ts's checks after the last page.
//
// A page is read as JSON (derivation-row.ts: the columns the derivation reads, one statement) or, when
// SQLite will not write one of its values as JSON (a BLOB), value by value with each row compared whole.
// No array per event on the JSON path: a year is millions of them.
import { projectEvent } from '../../collections/event-rules.js';
import { intentValues } from '../../collections/intent-row.js';
import type { Db } from '../../store/sqlite/connection.js';
import { rowsInRange, tableJsonCursor } from '../../store/sqlite/team/snapshot-file.js';
import { CHAIN_COLUMNS, payloadAndEvidence } from '../../store/sqlite/team/snapshot-chain.js';
import { intentProjection, type CollectionProjectionRow } from '../../store/sqlite/team/collection-projection.js';
import type { TeamEvent } from '../events.js';
import { fromTeamEvent, intentFromTeamEvent, TEAM_INTENT_KIND } from '../record.js';
import { SIGNED_SOURCES, teamEventVerifier, verdictAsStored, type EvidenceEvent, type Verdict } from '../evidence.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { eventValues } from '../sync/bulk-chunk.js';
import { refusedRow, SnapshotRejectedError } from './rejected.js';
import { typedIntOrNullValue } from '../../store/columns.js';
import { EVENT_COLUMNS, teamEventOf } from './chain-event.js';
import { shown } from './chain-explain.js';
import { derivationRow, derivationRows, derivedTeamEvent, keptTexts, type DerivationRow } from './derivation-row.js';

/** A payload the event row keeps, not read (the chain binds it to the event's). */
const KEPT = Symbol('kept');

const SIGNATURE_AT = EVENT_COLUMNS.indexOf('signature');
const NOTE_AT = EVENT_COLUMNS.indexOf('note');

/** A collection's columns as its intent writes them (insertIntentCollection). */
const INTENT_COLUMNS = [
  'id',
  'merchant_reference',
  'created_at',
  'amount_minor',
  'currency',
  'description',
  'customer_name',
  'customer_email',
  'charge_customer',
  'allow_final_status_change',
  'operator',
  'provider_code',
  'redirect_url',
  'card_brand',
  'card_last4',
] as const;

/** The intent columns a JS number reads from (JSON tells them from text, not from a real: tableJsonCursor). */
const INTENT_INTEGERS = new Set(['id', 'created_at', 'amount_minor', 'charge_customer', 'allow_final_status_change']);

export type Row = unknown[];

/**
 * Refuses the snapshot for its row `got`, which is not `want`, naming the first column that differs: as
 * the type it holds when it is one of the `integers` (tableJsonCursor gives such a value as its type).
 */
export function differs(
  table: string,
  columns: readonly string[],
  want: Row,
  got: Row | undefined,
  what: string,
  integers?: ReadonlySet<string>,
): never {
  if (!got) throw new SnapshotRejectedError(`it has no ${table} row ${String(want[0])} (${what})`);
  const col = columns.findIndex((_, k) => want[k] !== got[k]);
  const name = columns[col] ?? '';
  if (integers?.has(name)) {
    try {
      typedIntOrNullValue(got[col], name);
    } catch (e) {
      refusedRow(e, table, `${String(want[0])} (${what})`);
    }
  }
  throw new SnapshotRejectedError(
    `${table} row ${String(want[0])} (${what}): ${columns[col]} is ${shown(got[col])}, the record says ${shown(want[col])}`,
  );
}

export function same(a: Row, b: Row | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

function mismatch(id: number, seq: number, col: string, got: unknown, want: unknown): never {
  throw new SnapshotRejectedError(
    `collection_events row ${id} (seq ${seq}): ${col} is ${shown(got)}, the record says ${shown(want)}`,
  );
}

export interface ReplayOptions {
  /** verify.ts VerifyOptions.keys. */
  keys?: SignatureKeys | undefined;
  /** verify.ts VerifyOptions.deferSignatures. */
  deferSignatures?: boolean | undefined;
}

/** The walk of the file's events in id order, each row compared as it is reached. */
export class RowReplay {
  /** The last event id and collection id reached (each table's rows 1..N so far). */
  eventId = 0;
  collectionId = 0;
  /** Signed events whose verdict was taken as the snapshot stored it (deferred). */
  signed = 0;
  /** The seq of the event being compared in the current page (0 before its first). */
  seq = 0;
  /** Each collection's projection folded so far, by id. */
  readonly folded: CollectionProjectionRow[] = [];
  private readonly ids = new Map<string, number>();
  private readonly collections: { next(): unknown[] | undefined };
  private readonly checkNow: ((ev: EvidenceEvent) => Verdict) | undefined;
  private readonly defer: boolean;
  private readonly verify: ((ev: EvidenceEvent) => Verdict) | undefined;
  // Deferred: a signed event's verdict is the one the snapshot stored (read from the row being compared),
  // or, when that is not one a check could give, this desk's own (which the row then fails to match).
  private storedSignature: unknown;
  private storedNote: unknown;
  private writerNote: string | null = null;

  constructor(
    private readonly snap: Db,
    o: ReplayOptions,
  ) {
    this.collections = tableJsonCursor(snap, 'collections', INTENT_COLUMNS, INTENT_INTEGERS);
    const keys = o.keys;
    const checkNow = keys ? teamEventVerifier(keys) : undefined;
    this.checkNow = checkNow;
    this.defer = o.deferSignatures === true;
    this.verify =
      checkNow && o.deferSignatures
        ? (ev: EvidenceEvent): Verdict => {
            if (!SIGNED_SOURCES.has(ev.source)) return checkNow(ev);
            this.signed++;
            return verdictAsStored(this.writerNote, this.storedSignature, this.storedNote) ?? checkNow(ev);
          }
        : checkNow;
  }

  /** Events from+1..from+n, compared in id order; this.seq says the one a refusal is about. */
  page(from: number, n: number): void {
    this.seq = 0;
    const page = derivationRows(this.snap, from, n);
    if (page) {
      for (const raw of page) {
        this.seq = 0;
        const r = derivationRow(raw);
        this.seq = r.chain.seq;
        this.derive(r);
      }
      return;
    }
    // A column SQLite will not write as JSON (a BLOB): the page read value by value, each row compared whole.
    const rows = rowsInRange(this.snap, 'collection_events', EVENT_COLUMNS, from, from + n);
    const kept = rowsInRange(this.snap, 'snapshot_chain', CHAIN_COLUMNS, from, from + n);
    for (let j = 0; j < n; j++) {
      const id = from + j + 1;
      const s = kept[j];
      if (!s || s[0] !== id) throw new SnapshotRejectedError(`it has no snapshot_chain row ${id}`);
      this.seq = typeof s[1] === 'number' ? s[1] : 0;
      const tev = teamEventOf(rows[j] ?? [], s);
      if (!tev)
        throw new SnapshotRejectedError(
          `collection_events row ${id} (seq ${this.seq}): its payload is also in its snapshot_chain row`,
        );
      this.walk(tev, rows[j]);
    }
  }

  /** The event's collection: the one its reference has, or a new one from its intent (its row compared). */
  private collectionOf(tev: TeamEvent): number | undefined {
    const ref = tev.merchantReference;
    let cid = this.ids.get(ref);
    if (cid === undefined) {
      const intent = intentFromTeamEvent(tev);
      if (intent) {
        cid = ++this.collectionId;
        this.ids.set(ref, cid);
        const row: Row = [cid, ...intentValues(intent)];
        const got = this.collections.next();
        if (!same(row, got))
          differs('collections', INTENT_COLUMNS, row, got, `the intent of seq ${tev.seq}`, INTENT_INTEGERS);
        this.folded[cid] = intentProjection(intent.createdAt, intent.amountMinor, intent.currency);
      }
    }
    return cid;
  }

  /**
   * One event from its derivation columns: the team event as far as the rows derived from it read it (the
   * chain check binds every value, chain.ts), its collection, its stored kind, signature, note, time and
   * payload, and the projection it makes. The columns the event row keeps as the team event has them
   * are bound by the chain and not read here (dedupe_key; payload but where the row keeps none).
   */
  private derive(r: DerivationRow): void {
    const { id, rowPayloadNull } = r;
    const { source } = r.event;
    const { kind: teamKind, payload: keptPayload } = r.chain;
    if (keptPayload !== null && !rowPayloadNull)
      throw new SnapshotRejectedError(
        `collection_events row ${id} (seq ${r.chain.seq}): its payload is also in its snapshot_chain row`,
      );
    const tev = derivedTeamEvent(r);
    this.storedSignature = r.signature;
    this.storedNote = r.note;
    this.writerNote = tev.note;
    // The payload and evidence the row keeps, read only where the derivation reads them: an intent that
    // may become a collection, and a signature this desk checks itself here.
    const intentLike = source === 'intent' && teamKind === TEAM_INTENT_KIND;
    const checked =
      this.checkNow !== undefined &&
      SIGNED_SOURCES.has(source) &&
      (!this.defer || verdictAsStored(tev.note, this.storedSignature, this.storedNote) === null);
    /** The row's payload: null, or what it keeps (read only when the derivation reads it). */
    let rowPayload: unknown = rowPayloadNull ? null : KEPT;
    if ((intentLike && keptPayload === null && !rowPayloadNull) || checked) {
      const [payload, evidence] = keptTexts(id, payloadAndEvidence(this.snap, id));
      if (keptPayload === null) tev.payload = payload;
      tev.evidence = evidence;
      rowPayload = payload;
    }
    const cid = this.collectionOf(tev);
    const ev = fromTeamEvent(tev, this.verify);
    const p = cid === undefined ? undefined : this.folded[cid]!;
    const pr = p ? projectEvent(p, ev) : undefined;
    const eventId = ++this.eventId;

    // Column by column, in the row's order, the first that differs named (no array per event: a year is
    // millions of them).
    const payloadWant = intentLike ? (ev.payload ?? null) : keptPayload === null ? rowPayload : keptPayload;
    const seq = tev.seq;
    if (id !== eventId) mismatch(id, seq, 'id', id, eventId);
    if (r.collectionId !== (cid ?? null)) mismatch(id, seq, 'collection_id', r.collectionId, cid ?? null);
    const e = r.event;
    if (e.merchantReference !== ev.merchantReference)
      mismatch(id, seq, 'merchant_reference', e.merchantReference, ev.merchantReference);
    if (e.internalReference !== (ev.internalReference ?? null))
      mismatch(id, seq, 'internal_reference', e.internalReference, ev.internalReference ?? null);
    if (e.source !== ev.source) mismatch(id, seq, 'source', e.source, ev.source);
    const kind = pr ? pr.kind : ev.kind;
    if (r.kind !== kind) mismatch(id, seq, 'kind', r.kind, kind);
    if (e.status !== (ev.status ?? null)) mismatch(id, seq, 'status', e.status, ev.status ?? null);
    if (r.receivedAt !== ev.receivedAt) mismatch(id, seq, 'received_at', r.receivedAt, ev.receivedAt);
    if (r.signature !== ev.signature) mismatch(id, seq, 'signature', r.signature, ev.signature);
    if (e.amountMinor !== (ev.amountMinor ?? null))
      mismatch(id, seq, 'amount_minor', e.amountMinor, ev.amountMinor ?? null);
    if (e.currency !== (ev.currency ?? null)) mismatch(id, seq, 'currency', e.currency, ev.currency ?? null);
    // The row keeps the team payload, but an intent's, which became its collection: what it keeps is the
    // event's (the chain binds it) unless the event's is kept beside it instead.
    if (rowPayload !== payloadWant) mismatch(id, seq, 'payload', rowPayload, payloadWant);
    if (r.note !== (ev.note ?? null)) mismatch(id, seq, 'note', r.note, ev.note ?? null);
    if (p && pr) {
      Object.assign(p, pr.next);
      p.last_event_id = eventId;
    }
  }

  /** One event: its collection (a new one from its intent), its stored kind, and the projection it makes. */
  private walk(tev: TeamEvent, stored: Row | undefined): void {
    const id = this.collectionOf(tev);
    this.storedSignature = stored?.[SIGNATURE_AT];
    this.storedNote = stored?.[NOTE_AT];
    this.writerNote = tev.note;
    const ev = fromTeamEvent(tev, this.verify);
    const p = id === undefined ? undefined : this.folded[id]!;
    const r = p ? projectEvent(p, ev) : undefined;
    const row: Row = [++this.eventId, ...eventValues(id ?? null, ev, r ? r.kind : ev.kind)];
    if (!same(row, stored)) differs('collection_events', EVENT_COLUMNS, row, stored, `seq ${tev.seq}`);
    if (p && r) {
      Object.assign(p, r.next);
      p.last_event_id = this.eventId;
    }
  }
}
