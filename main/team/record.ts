// Writing a desktop's own facts to the team record. A local event and its team copy carry the same
// dedupe key, so when the desktop later pulls its own event back, applying it stores nothing.
import type pg from 'pg';
import type { NewEvent } from '../collections/event-rules.js';
import type { CollectionIntent } from '../collections/intent-row.js';
import { teamEventKey, withTeamKey } from '../collections/event-key.js';
export { intentEventKey, teamEventKey, withTeamKey } from '../collections/event-key.js';
import type { EventKind } from '../collections/model.js';
import {
  appendEvents,
  appendJudgedEvents,
  type JudgedEvent,
  type TeamAppendResult,
  type NewTeamEvent,
  type TeamEvent,
} from './events.js';
import { createIntent, type IntentGuards } from './intents.js';
import { unverifiedNote, type EventVerifier } from './evidence.js';
import { explainResolutionRefusal } from './resolutions.js';
import { INTENT_PAYLOAD_LIMITS, teamJson } from './json-limits.js';

/** A charge's intent as the team records it: everything its collection row starts with. */
export type TeamIntent = CollectionIntent;

/** The team log names an intent 'intent' (intents.ts); a desktop's history names it 'intent_saved'. */
export const TEAM_INTENT_KIND = 'intent';
const LOCAL_INTENT_KIND: EventKind = 'intent_saved';

/** Maps a local event to the team's; gives it a dedupeKey when it has none. The actor is the database's. */
export function toTeamEvent(ev: NewEvent): NewTeamEvent {
  return {
    eventKey: teamEventKey(ev),
    merchantReference: ev.merchantReference,
    internalReference: ev.internalReference ?? null,
    source: ev.source,
    kind: ev.kind === LOCAL_INTENT_KIND ? TEAM_INTENT_KIND : ev.kind,
    status: ev.status ?? null,
    amountMinor: ev.amountMinor ?? null,
    currency: ev.currency ?? null,
    signature: ev.signature,
    payload: ev.payload ?? null,
    evidence: ev.evidence ?? null,
    note: ev.note ?? null,
    paymentUrl: ev.paymentUrl ?? null,
    statusMessage: ev.statusMessage ?? null,
    occurredAt: ev.receivedAt,
  };
}

/** What an intent event's payload carries besides its columns (amount, currency). */
type IntentPayload = Omit<CollectionIntent, 'merchantReference' | 'amountMinor' | 'currency'>;

// Applying an intent reads its payload twice (intentFromTeamEvent for the row, fromTeamEvent for the
// event); a new desk's start does that for every collection of a year, so the last parse is kept.
let parsedFor: TeamEvent | null = null;
let parsed: Partial<IntentPayload> | null = null;

function intentPayload(ev: TeamEvent): Partial<IntentPayload> | null {
  if (ev.source !== 'intent' || ev.kind !== TEAM_INTENT_KIND || !ev.payload) return null;
  if (ev === parsedFor) return parsed;
  // Not JSON, or past the limits: not an intent this app can read; the event is applied as it is, with no
  // collection row.
  const p = teamJson(ev.payload, INTENT_PAYLOAD_LIMITS);
  parsedFor = ev;
  parsed = p && typeof p === 'object' ? (p as Partial<IntentPayload>) : null;
  return parsed;
}

/**
 * The collection another desktop's intent starts, from its event; null when the event is not an
 * intent. Fields an older writer left out get the values a charge would have had.
 */
export function intentFromTeamEvent(ev: TeamEvent): CollectionIntent | null {
  const p = intentPayload(ev);
  if (!p || ev.amountMinor === null || ev.currency === null) return null;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    merchantReference: ev.merchantReference,
    createdAt: typeof p.createdAt === 'number' ? p.createdAt : ev.occurredAt,
    amountMinor: ev.amountMinor,
    currency: ev.currency,
    description: str(p.description) ?? '',
    customerName: str(p.customerName),
    customerEmail: str(p.customerEmail),
    chargeCustomer: p.chargeCustomer === true,
    allowFinalStatusChange: p.allowFinalStatusChange !== false,
    // Who charged is the login PostgreSQL recorded (DESIGN.md "Trust boundaries"): a payload's operator,
    // written by any teammate's desk, is never read.
    operator: ev.actor,
    providerCode: str(p.providerCode),
    redirectUrl: str(p.redirectUrl) ?? '',
    cardBrand: str(p.cardBrand),
    cardLast4: str(p.cardLast4),
  };
}

/**
 * The reverse of toTeamEvent, for applying a pulled event locally (collectionId resolved by the caller).
 * With `verify` (a team desk: team/evidence.ts), the signature stored is this desk's own verdict, never
 * the writer's, and why it is not verified is added to the note; without, the writer's (tests of the
 * mapping alone).
 */
export function fromTeamEvent(ev: TeamEvent, verify?: EventVerifier): Omit<NewEvent, 'collectionId'> {
  const intent = intentPayload(ev);
  const verdict = verify?.(ev);
  return {
    merchantReference: ev.merchantReference,
    internalReference: ev.internalReference,
    source: ev.source,
    kind: (verdict?.kind ?? (ev.kind === TEAM_INTENT_KIND ? LOCAL_INTENT_KIND : ev.kind)) as EventKind,
    status: ev.status,
    // An intent happened when its desktop saved it; the database's own time comes a little later.
    receivedAt: intent && typeof intent.createdAt === 'number' ? intent.createdAt : ev.occurredAt,
    signature: verdict ? verdict.signature : ev.signature,
    amountMinor: ev.amountMinor,
    currency: ev.currency,
    dedupeKey: ev.eventKey,
    // An intent's payload became its collection row; the desktop that saved it stored no payload either.
    payload: intent ? null : ev.payload,
    note: verdict ? unverifiedNote(ev.note, verdict) : ev.note,
    // The database's actor, on every event (the payload cannot override it).
    actor: ev.actor,
    paymentUrl: ev.paymentUrl,
    statusMessage: ev.statusMessage,
  };
}

/**
 * One charge per intent across the team: the team.intents row and its 'intent' event in ONE
 * transaction (createIntent). A reference already held fails with ReferenceTakenError naming
 * who holds it. The event's payload carries the whole collection row, so another desktop can create
 * the collection exactly as this one did. With `guards`, the team's repeat-charge question and daily
 * limit decide first (team/intents.ts).
 */
export async function recordIntent(
  pool: pg.Pool,
  intent: TeamIntent,
  guards?: IntentGuards,
): Promise<{ seq: number; createdAt: number }> {
  const { merchantReference, amountMinor, currency, description, ...rest } = intent;
  const created = await createIntent(
    pool,
    {
      merchantReference,
      amountMinor,
      currency,
      description,
      details: rest satisfies Omit<IntentPayload, 'description'>,
    },
    guards,
  );
  return { seq: created.seq, createdAt: created.createdAt };
}

/**
 * Writes local events, with the same dedupe keys as the local copies (see withTeamKey). A resolution the
 * database refuses because another one stands (team migration 13) fails with ResolutionTakenError,
 * naming who resolved it, when, and their note.
 */
export async function recordEvents(pool: pg.Pool, events: readonly NewEvent[]): Promise<TeamAppendResult> {
  try {
    return await appendEvents(pool, events.map(toTeamEvent));
  } catch (e) {
    throw await explainResolutionRefusal(pool, e);
  }
}

/** What a team-first write recorded: the events keyed as the local copies will be, and the keys it stored. */
export interface TeamFirstRecord {
  events: NewEvent[];
  /**
   * The keys this call stored (the others the record held already). The desk's sync may pull these back
   * and store them before the caller does: they are still this call's, not duplicates.
   */
  stored: ReadonlySet<string>;
  /**
   * For each event, in the order given, the key the record holds it under: its own, or for a callback the
   * database judged said again, `<key>:<n>`; null for a callback it judged a repeat (nothing to store).
   */
  keys: (string | null)[];
}

/** A callback's body, whose key the database judges (team migration 18): serve's and an import's events. */
const isCallback = (ev: NewEvent) => ev.source === 'callback' || ev.source === 'import';

/**
 * A person's facts (a resolution, an import's callbacks) recorded in the team database before the desk
 * stores them. 1,000 a statement: a retry after a partial failure stores nothing twice (the log is
 * idempotent by key). Callbacks are judged by the database, in the order given (new, a repeat, or said
 * again after another status: team.callback_keys), as serve's are. Throws what recordEvents throws.
 */
export async function recordTeamFirst(pool: pg.Pool, evs: readonly NewEvent[]): Promise<TeamFirstRecord> {
  const keyed = evs.map(withTeamKey);
  const stored = new Set<string>();
  const keys: (string | null)[] = [];
  const judged = keyed.length > 0 && keyed.every(isCallback);
  for (let i = 0; i < keyed.length; i += 1000) {
    const part = keyed.slice(i, i + 1000);
    if (judged) {
      for (const j of await recordJudged(pool, part)) {
        keys.push(j.key);
        if (j.key !== null) stored.add(j.key);
      }
      continue;
    }
    const r = await recordEvents(pool, part);
    for (const s of r.stored) stored.add(s.eventKey);
    keys.push(...part.map((e) => e.dedupeKey ?? null));
  }
  return { events: keyed, stored, keys };
}

/** Callbacks recorded under the keys the database judges them (appendJudgedEvents); repeats within `evs` are judged too. */
async function recordJudged(pool: pg.Pool, evs: readonly NewEvent[]): Promise<JudgedEvent[]> {
  // The statement takes distinct keys: a body repeated within the batch goes in the next statement, judged
  // against what the first stored (a retry in the file is a repeat; after another status, said again).
  const out: JudgedEvent[] = [];
  let rest = [...evs];
  while (rest.length) {
    const seen = new Set<string>();
    const now: NewEvent[] = [];
    const later: NewEvent[] = [];
    for (const e of rest) {
      const k = e.dedupeKey ?? '';
      if (seen.has(k) || later.length) later.push(e);
      else {
        seen.add(k);
        now.push(e);
      }
    }
    try {
      out.push(...(await appendJudgedEvents(pool, now.map(toTeamEvent))));
    } catch (e) {
      throw await explainResolutionRefusal(pool, e);
    }
    rest = later;
  }
  return out;
}

/** What is recorded team-first, in words for the refusal ("may not resolve exceptions"). */
export interface TeamFirstWhat {
  /** e.g. "resolve exceptions" */
  action: string;
  /** e.g. "resolution" */
  noun: string;
}
