// The one ingestion of service callbacks, used by the local receiver and the JSON-lines importer.
// Synchronous and one transaction per callback (better-sqlite3), so "200" means "durably stored".
//
// Order: decode the JSON (we need the signed fields), verify the signatures over those fields, and
// only then look up the collection and interpret the rest of the payload. The exact bytes are stored as
// the event payload. An unverified or malformed delivery stores nothing (see securityRecord).
// Idempotent: the dedupe key is the reference and a hash of the body's canonical JSON, so a retried,
// duplicated or re-imported callback is recognised whatever its whitespace or signature timestamp.
import crypto from 'node:crypto';
import type { Db } from '../store/sqlite/connection.js';
import type { AppendOptions, Ledger } from '../collections/ledger.js';
import { eventByKey } from '../store/sqlite/ledger/collection-events.js';
import { collectionIdOf } from '../store/sqlite/ledger/intent-rows.js';
import { callbackEvent, type CallbackSource, type VerifiedCallback } from './callback-event.js';
import { callbackEvidence } from '../collections/evidence.js';
import { parseCallbackBody } from '../service/callback-wire.js';
import { readWireJson } from '../service/wire-json.js';
import { WireFormatError } from '../service/errors.js';
import type { SignedFields } from '../service/types.js';
import { checkSignatures, type SignatureKeys } from '../service/verify-callback.js';
import type { SecurityReason } from './security-log.js';
import { CALLBACK_MAX_DEPTH, callbackBodyRefusal, type ShapeRefusal } from './shape-limits.js';

export type Headers = Record<string, string | string[] | undefined>;

export interface IngestInput {
  /** The body exactly as received (bytes or text), or an already-decoded object (imports). */
  body: Buffer | string | object;
  headers: Headers;
  source: CallbackSource;
}

export interface IngestContext {
  keys: SignatureKeys;
  now: number;
  /** What a verified callback is stored through. */
  ledger: Ledger;
}

export type IngestOutcome =
  | {
      result: 'imported';
      reference: string;
      status: string;
      orphan: boolean;
      eventId: number;
      kind: string;
      warning?: string;
    }
  | { result: 'duplicate'; reference: string; eventId: number; dedupeKey: string; status: string; orphan: boolean }
  | { result: 'bad_signature'; reference: string | null; signature: 'invalid' | 'missing'; reason: string }
  | {
      result: 'malformed';
      message: string;
      /** Refused on its shape before it was read (shape-limits.ts): its own reason in the security log. */
      refusal?: ShapeRefusal['reason'];
    };

function header(h: Headers, name: string): string | undefined {
  const direct = h[name];
  const v = direct !== undefined ? direct : Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * JSON with object keys sorted at every level: the same callback always has the same text. Recursive: it
 * only ever sees a body within the shape limits (shape-limits.ts), checked where it came in.
 */
// Written with loops rather than map/join: it runs for every callback, and the text must never change
// (it is hashed into the dedupe keys already stored).
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + canonicalJson(v[i]);
    return out + ']';
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) out += (i ? ',' : '') + keyJson(keys[i]!) + ':' + canonicalJson(o[keys[i]!]);
  return out + '}';
}

/**
 * A key's JSON text, remembered: every callback has the same few dozen keys, written again for each
 * one. Bounded, as a body's keys are the sender's to choose.
 */
const keyTexts = new Map<string, string>();
const KEY_TEXTS_MAX = 2048;
function keyJson(k: string): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = JSON.stringify(k);
    if (keyTexts.size < KEY_TEXTS_MAX) keyTexts.set(k, t);
  }
  return t;
}

const sha256 = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

export type Verification =
  | { result: 'verified'; callback: VerifiedCallback }
  | Extract<IngestOutcome, { result: 'bad_signature' | 'malformed' }>;

/** A callback whose signatures verified, read, before any dedupe key is made for it. */
export type SignedCallback = Omit<VerifiedCallback, 'digest' | 'dedupeKey'>;

export type SignedReading =
  | { result: 'verified'; callback: SignedCallback; body: object }
  | Extract<IngestOutcome, { result: 'bad_signature' | 'malformed' }>;

/**
 * The pure half of ingestion, shared by every store (this SQLite one, the team's PostgreSQL one):
 * decode, verify the signatures over the signed fields, then read the rest. Touches no database.
 */
export function verifyCallback(input: IngestInput, keys: SignatureKeys): Verification {
  const r = readSignedCallback(input, keys);
  if (r.result !== 'verified') return r;
  // The dedupe key leads with the reference: merchant references are made in time order, so a day's
  // callbacks share a few pages of the unique index instead of each writing a random one (the WAL and
  // every checkpoint carry those pages). Keys stored before were 'callback:<digest>'; a retry of one of
  // those is still a duplicate (checked by the SQLite store).
  const digest = sha256(canonicalJson(r.body));
  return {
    result: 'verified',
    callback: { ...r.callback, digest, dedupeKey: `callback:${r.callback.reference}:${digest}` },
  };
}

/**
 * verifyCallback without the dedupe key (the canonical JSON and its hash cost most of a check): what a
 * team desk uses to check a stored callback again from its evidence (team/evidence.ts).
 */
export function readSignedCallback(input: IngestInput, keys: SignatureKeys): SignedReading {
  let text: string;
  let body: unknown;
  if (Buffer.isBuffer(input.body) || typeof input.body === 'string') {
    text = Buffer.isBuffer(input.body) ? input.body.toString('utf8') : input.body;
    // Before any parser: everything that reads a body after recurses once per level of it.
    const refused = callbackBodyRefusal(text);
    if (refused) return { result: 'malformed', message: refused.message, refusal: refused.reason };
    // Every digit of the amounts as sent (a double would round 74912820901925.32). The shape was held to the
    // callback's limits just above, so the reader's own check (the same limits) never refuses here.
    const read = readWireJson(text, { maxDepth: CALLBACK_MAX_DEPTH });
    if (!read.ok) return { result: 'malformed', message: 'the body is not valid JSON' };
    body = read.value;
  } else {
    // A decoded body (an import line's object): its line was held to the limits before it was parsed.
    body = input.body;
    text = JSON.stringify(body);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { result: 'malformed', message: 'the body must be a JSON object' };
  const b = body as { event?: unknown; payload?: unknown };
  const p = (b.payload && typeof b.payload === 'object' ? b.payload : null) as Record<string, unknown> | null;
  if (!p) return { result: 'malformed', message: 'payload is missing or not an object' };
  const signed: { [K in keyof SignedFields]: string | undefined } = {
    event: str(b.event) ?? undefined,
    merchant_reference: str(p.merchant_reference) ?? undefined,
    internal_reference: str(p.internal_reference) ?? undefined,
    transaction_type: str(p.transaction_type) ?? undefined,
    transaction_status: str(p.transaction_status) ?? undefined,
  };
  for (const k of [
    'event',
    'merchant_reference',
    'internal_reference',
    'transaction_type',
    'transaction_status',
  ] as const) {
    if (!signed[k]) return { result: 'malformed', message: `${k === 'event' ? 'event' : 'payload.' + k} is missing` };
  }
  const fields = signed as SignedFields;
  const reference = fields.merchant_reference;

  const hmacHeader = header(input.headers, 'hmac-signature');
  const rsaSignature = header(input.headers, 'rsa-signature');
  const check = checkSignatures(fields, { hmacHeader, rsaSignature }, keys);
  if (check.state !== 'verified') {
    // Not a collection event: anyone can name a real merchant_reference. Nothing is stored here; the
    // caller counts it in the security log (security-log.ts).
    return {
      result: 'bad_signature',
      reference,
      signature: check.state,
      reason: check.reason ?? 'signature not verified',
    };
  }

  // Verified: now read the rest.
  let status = fields.transaction_status.trim().toUpperCase();
  let amountMinor: number | null = null;
  let currency: string | null = str(p.request_currency);
  let internalReference = fields.internal_reference;
  let statusMessage: string | null = str(p.status_message);
  let warning: string | undefined;
  try {
    const parsed = parseCallbackBody(body);
    status = parsed.transactionStatus;
    amountMinor = parsed.requestAmountMinor ?? null;
    currency = parsed.requestCurrency ?? null;
    internalReference = parsed.internalReference;
    statusMessage = parsed.statusMessage ?? null;
  } catch (e) {
    if (!(e instanceof WireFormatError)) throw e;
    // Signed and verified, but a field we do not sign is unreadable: keep the outcome, flag the amount.
    warning = `${e.field}: ${e.problem}`;
  }

  return {
    result: 'verified',
    body,
    callback: {
      reference,
      internalReference,
      status,
      amountMinor,
      currency,
      statusMessage,
      ...(warning ? { warning } : {}),
      payload: text,
      evidence: callbackEvidence({ hmac: hmacHeader ?? null, rsa: rsaSignature ?? null }),
    },
  };
}

/** A callback already stored (as `eventId`; 0 where the store does not say). */
export function duplicateOf(cb: VerifiedCallback, eventId: number, orphan: boolean): IngestOutcome {
  return { result: 'duplicate', reference: cb.reference, eventId, dedupeKey: cb.dedupeKey, status: cb.status, orphan };
}

export function ingestCallback(db: Db, input: IngestInput, ctx: IngestContext): IngestOutcome {
  const v = verifyCallback(input, ctx.keys);
  if (v.result !== 'verified') return v;
  return storeVerifiedCallback(ctx.ledger, db, v.callback, input.source, ctx.now);
}

/**
 * The SQLite half: the local collection_events row (and its projection), idempotent by dedupe key.
 * In an append transaction of its own unless `transaction` is 'caller': a caller whose transaction is
 * rolled back whole on a throw (the group commit; see collections/ledger.ts Ledger.append).
 */
export function storeVerifiedCallback(
  ledger: Ledger,
  db: Db,
  cb: VerifiedCallback,
  source: IngestInput['source'],
  now: number,
  transaction: AppendOptions['transaction'] = 'own',
): IngestOutcome {
  const { reference, warning } = cb;
  const collectionId = collectionIdOf(db, reference);
  // Keys stored before were 'callback:<digest>': a retry of one of those is still a duplicate.
  const earlier = eventByKey(db, 'callback:' + cb.digest);
  const orphan = collectionId === undefined;
  if (earlier) return duplicateOf(cb, earlier.id, orphan);
  const r = ledger.append(db, callbackEvent(cb, source, now, collectionId ?? null), { transaction });
  if (!r.inserted) return duplicateOf(cb, r.eventId, orphan);
  return {
    result: 'imported',
    reference,
    status: cb.status,
    orphan,
    eventId: r.eventId,
    kind: r.kind,
    ...(warning ? { warning } : {}),
  };
}

/** How a refused delivery is counted in the security log, with a short sample (never the whole body). */
export function securityRecord(
  o: Extract<IngestOutcome, { result: 'bad_signature' | 'malformed' }>,
  body: IngestInput['body'],
): { reason: SecurityReason; sample: string } {
  const text = Buffer.isBuffer(body)
    ? body.subarray(0, 200).toString('utf8')
    : typeof body === 'string'
      ? body.slice(0, 200)
      : JSON.stringify(body).slice(0, 200);
  if (o.result === 'malformed') return { reason: o.refusal ?? 'malformed', sample: `${o.message}; body: ${text}` };
  return {
    reason: o.signature === 'missing' ? 'missing_signature' : 'bad_signature',
    sample: `${o.reference ?? '?'}: ${o.reason}; body: ${text}`,
  };
}
