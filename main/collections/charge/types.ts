// The charge service's vocabulary, shared by its steps (initialize, repeat guard, page, redirect) and
// by the IPC contract, which answers with these shapes.
import type { Db } from '../../store/sqlite/connection.js';
import type { Words } from '../../words/words.shared.js';
import type { Clock } from '../../clock.js';
import type { PaymentOption, ServiceClient } from '../../service/types.js';
import type { AppendResult, NewEvent } from '../event-rules.js';
import type { Ledger } from '../ledger.js';
import type { PaymentWindowOpener } from '../payment-window.js';
import type { CollectionRow } from '../query.js';
import type { CollectionIntent } from '../intent-row.js';

export type MaybePromise<T> = T | Promise<T>;

export interface ChargeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ChargeServiceDeps {
  db: Db;
  /** The process's ledger: every event a charge stores goes through it. */
  ledger: Ledger;
  getClient: () => MaybePromise<ServiceClient | null>;
  getServicePublicKeyPem: () => MaybePromise<string | null>;
  /** The merchant signing key (HMAC of redirects); RSA alone is enough when absent. */
  getSigningKey?: () => MaybePromise<string | null>;
  /** The active card option for a currency; default: the cached payment_options table, else the service. */
  getCardOption?: (currency: string) => MaybePromise<PaymentOption | null>;
  clock: Clock;
  paymentWindow?: PaymentWindowOpener | (() => PaymentWindowOpener | null | undefined);
  redirectUrl: string | (() => string);
  operator: string | (() => string);
  logger?: ChargeLogger;
  /** Called whenever a collection changes during a charge (PENDING, window closed, redirect). */
  onUpdate?: (collection: CollectionRow) => void;
  /**
   * A team desk's key for the card fingerprint the team's repeat-charge question compares
   * (fingerprint.ts teamFingerprintKey); null when it cannot be made (no secret key).
   */
  getFingerprintKey?: () => MaybePromise<Buffer | null>;
  /** Repeat-charge window; default 5 minutes. */
  repeatWindowMs?: number;
  /** A team profile's shared record (null or absent on a solo profile): see TeamChargeSeam. */
  team?: () => TeamChargeSeam | null;
  /** How a new charge's merchant_reference is made (default newMerchantReference; tests race one reference). */
  newReference?: (now: number) => string;
}

/**
 * A team profile's charges are team-wide: the intent is committed in the team database before initialize
 * is sent (one charge per intent across every desk), and every event a charge stores locally goes into
 * the desk's outbox in the same transaction and is pushed from there. The errors thrown are PaymentErrors
 * written for the person at the desk.
 */
export interface TeamChargeSeam {
  /**
   * Commits the intent team-wide, once the team database's guards let it through; throws when the
   * reference is taken, the login may not charge, the amount would pass the team's daily limit, or the
   * database is offline. The same card and amount charged within minutes at any desk, not confirmed:
   * nothing is recorded, and the answer says who charged it and when.
   */
  recordIntent(intent: CollectionIntent, guards: TeamIntentGuards): Promise<TeamIntentRecorded>;
  /**
   * The team's total (minor units) of `currency` since `dayStart` that counts against the daily limit
   * (every desk's intents that have not failed); null when the team database cannot say now.
   */
  collectedSince(currency: string, dayStart: number): Promise<number | null>;
  /**
   * Before anything is sent for an EXISTING intent (a re-send of an UNKNOWN payment): the team database
   * grants this login a claim on it (team/claims.ts), or this throws a PaymentError saying who holds it
   * or who may claim it (or that the database cannot be reached). A new charge needs none: creating
   * its intent is its creator's claim (recordIntent).
   */
  claim(reference: string): Promise<void>;
  /** An event was stored with its outbox row: the push may send it now (it would find it anyway). */
  outboxAdded(): void;
}

/** What the team database judges a new intent by (team migration 12). */
export interface TeamIntentGuards {
  /** The card, amount and currency under the team's key (fingerprint.ts); null: no repeat question. */
  fingerprint: Buffer | null;
  /** The person was asked "Charge this card again?" and said yes. */
  confirmedRepeat: boolean;
  /** The start of the desk's day and the option's max_daily_amount. */
  dayStart: number;
  maxDailyMinor: number;
}

export type TeamIntentRecorded =
  | { kind: 'recorded' }
  /** The same card and amount were charged by `chargedBy` at `chargedAt`: the person is asked first. */
  | { kind: 'repeat'; chargedBy: string; chargedAt: number };

/** How one charge, confirmation or re-send moves, from the moment its intent is saved (its own collection only). */
export interface ChargeProgress {
  reference: string;
  /** The collection's status now: INTENT (about to be sent), PENDING, UNKNOWN, REJECTED, a final one. */
  status: string;
}

/** Options of one charge, confirmation or re-send. */
export interface ChargeCallOptions {
  signal?: AbortSignal;
  /** Told every move of this call's own collection (and of no other). */
  onProgress?: (p: ChargeProgress) => void;
}

/** What the charge came to: `message` in English (logs, the CLI), `words` for the window. */
export type ChargeOutcome = { message: string; words?: Words } & (
  | { kind: 'needs_confirmation'; token: string }
  | { kind: 'pending'; paymentUrl: string }
  | { kind: 'window_closed' }
  | { kind: 'completed' | 'failed' | 'cancelled'; verified: boolean }
  | { kind: 'unverified'; status: string | null }
  | { kind: 'rejected'; field?: string }
  | { kind: 'unknown' }
);

export interface ChargeResult {
  collection: CollectionRow | null;
  outcome: ChargeOutcome;
}

export interface RedirectResult {
  collection: CollectionRow | null;
  status: string | null;
  signature: 'verified' | 'invalid' | 'missing';
  outcome: ChargeOutcome;
}

/** A charge checked and encrypted, ready to save and send: no card data, only its cipher and receipt details. */
export interface PreparedCharge {
  amountMinor: number;
  currency: string;
  providerCode: string;
  description: string;
  customerName: string | null;
  customerEmail: string | null;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  brand: string;
  last4: string;
  cipher: string;
  /** Solo: the in-memory guard's key of this card and amount; null on a team desk (the database decides). */
  guardKey: string | null;
  /** Team: the card's keyed fingerprint (fingerprint.ts), never the card; null on a solo desk. */
  fingerprint: Buffer | null;
  /** The option's daily limit, which the team database checks the team's total against. */
  maxDailyMinor: number;
}

/** What every step of a charge shares: the database, the clock, the event writer and the live settings. */
export interface ChargeContext {
  db: Db;
  clock: Clock;
  deps: ChargeServiceDeps;
  /** Stores what the service answered (team profile: with its outbox row); waits while the database is locked. */
  events: ChargeEvents;
  /** Reads a collection again and tells deps.onUpdate. */
  emit(collectionId: number): CollectionRow | null;
  redirectUrl(): string;
  operator(): string;
}

/** How the charge service stores its events (record.ts: the ledger, waiting out a locked database). */
export interface ChargeEvents {
  /** Stores `ev` (team profile: with its outbox row); resolves once it is stored. */
  append(ev: NewEvent): Promise<AppendResult>;
  /** Stops any wait for the database: a waiting append rejects. */
  dispose(): void;
}
