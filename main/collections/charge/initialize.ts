// Intent -> initialize -> the stored answer. The intent is saved BEFORE anything is sent, so a payment
// the service may have created is never unknown to the desk. The answer is stored (charge/record.ts)
// before the charge goes on, waiting while the database is locked: an accepted payment is never forgotten.
// A timeout, reset or unreadable answer leaves the collection UNKNOWN; it is re-sent with the SAME
// merchant_reference, and "duplicate reference" then proves it exists.
import crypto from 'node:crypto';
import { english, nest, words, type Words } from '../../words/words.shared.js';

/** An outcome's words and their English. */
const said = (w: Words) => ({ message: english(w), words: w });
import type { InitializeAccepted, InitializeRequest, ServiceClient } from '../../service/types.js';
import {
  AuthenticationError,
  DuplicateReferenceError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
  isServiceError,
} from '../../service/errors.js';
import { saveIntentCollection, type CollectionIntent } from '../intent-row.js';
import { formField } from './card-data.js';
import type { NewEvent } from '../event-rules.js';
import type { ChargeContext, ChargeOutcome, PreparedCharge } from './types.js';
import { collectionAsStored, type StoredCollection } from '../../store/sqlite/read/collection-detail.js';

/** "MD-20261121-7K3Q9XPA": date for people, 40 random bits so two desks never collide. */
export function newMerchantReference(now: number): string {
  const d = new Date(now).toISOString().slice(0, 10).replace(/-/g, '');
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = crypto.randomBytes(8);
  let r = '';
  for (const b of bytes) r += alphabet[b % alphabet.length];
  return `MD-${d}-${r}`;
}

/** What a prepared charge saves as its intent (never card data: brand and last four only). */
export function intentOf(ctx: ChargeContext, p: PreparedCharge, reference: string): CollectionIntent {
  return {
    merchantReference: reference,
    createdAt: ctx.clock.now(),
    amountMinor: p.amountMinor,
    currency: p.currency,
    description: p.description,
    customerName: p.customerName,
    customerEmail: p.customerEmail,
    chargeCustomer: p.chargeCustomer,
    allowFinalStatusChange: p.allowFinalStatusChange,
    operator: ctx.operator(),
    providerCode: p.providerCode,
    redirectUrl: ctx.redirectUrl(),
    cardBrand: p.brand,
    cardLast4: p.last4,
  };
}

/** Saves the intent (status INTENT) with its intent_saved event; its collection id. */
export function saveIntent(ctx: ChargeContext, intent: CollectionIntent): number {
  const id = saveIntentCollection(ctx.deps.ledger, ctx.db, intent);
  const { merchantReference: reference, currency, amountMinor } = intent;
  ctx.deps.logger?.info({ reference, currency, amountMinor }, 'card charge: intent saved, sending initialize');
  return id;
}

/** What every initialize event of one send shares. */
type SendBase = Pick<NewEvent, 'collectionId' | 'merchantReference' | 'source' | 'signature'>;

/** The initialize request of a saved intent (its stored row), with the card's cipher. */
function initializeRequest(row: StoredCollection, reference: string, cipher: string): InitializeRequest {
  return {
    merchantReference: reference,
    currency: row.currency,
    amountMinor: row.amount_minor,
    description: row.description,
    cardCipher: cipher,
    redirectUrl: row.redirect_url,
    ...(row.customer_name ? { customerName: row.customer_name } : {}),
    ...(row.customer_email ? { customerEmail: row.customer_email } : {}),
    chargeCustomer: row.charge_customer !== 0,
    allowFinalStatusChange: row.allow_final_status_change !== 0,
  };
}

/** Sends initialize for a saved intent and records the answer. */
export async function sendInitialize(
  ctx: ChargeContext,
  collectionId: number,
  reference: string,
  client: ServiceClient,
  cipher: string,
  isResend: boolean,
): Promise<ChargeOutcome> {
  const row = collectionAsStored(ctx.db, collectionId)!;
  const base: SendBase = {
    collectionId,
    merchantReference: reference,
    source: 'initiate',
    signature: 'not_applicable',
  };
  // Only the request is inside the try: a failure to store the answer is not a failure of the request.
  let r: InitializeAccepted;
  try {
    r = await client.initialize(initializeRequest(row, reference, cipher));
  } catch (e) {
    if (e instanceof DuplicateReferenceError) return recordExists(ctx, base, row, e);
    if (
      e instanceof ValidationError ||
      e instanceof AuthenticationError ||
      e instanceof ForbiddenError ||
      e instanceof NotFoundError ||
      e instanceof RateLimitedError
    )
      return recordRejected(ctx, base, e, isResend);
    return recordUnknown(ctx, base, e);
  }
  await ctx.events.append({
    ...base,
    kind: 'initialize_accepted',
    status: 'PENDING',
    receivedAt: ctx.clock.now(),
    internalReference: r.internalReference ?? null,
    paymentUrl: r.paymentUrl,
    payload: JSON.stringify({
      http_status: r.httpStatus,
      internal_reference: r.internalReference ?? null,
      payment_url: r.paymentUrl,
      message: r.message ?? null,
    }),
  });
  return { kind: 'pending', ...said(words('payment.accepted')), paymentUrl: r.paymentUrl };
}

/** "Duplicate reference": the service has this payment, so it exists (with its page, when the service says). */
async function recordExists(
  ctx: ChargeContext,
  base: SendBase,
  row: StoredCollection,
  e: DuplicateReferenceError,
): Promise<ChargeOutcome> {
  const known = e.paymentUrl ?? row.payment_url ?? null;
  await ctx.events.append({
    ...base,
    kind: 'initialize_exists',
    status: known ? 'PENDING' : null,
    receivedAt: ctx.clock.now(),
    internalReference: e.internalReference ?? null,
    paymentUrl: known,
    payload: JSON.stringify({
      http_status: e.status ?? null,
      message: e.serviceMessage ?? e.message,
      internal_reference: e.internalReference ?? null,
      payment_url: e.paymentUrl ?? null,
    }),
    note: e.refusedPaymentUrl
      ? `the service already has this merchant_reference: the collection exists; ${e.refusedPaymentUrl}`
      : 'the service already has this merchant_reference: the collection exists',
  });
  return known
    ? { kind: 'pending', ...said(words('payment.exists')), paymentUrl: known }
    : {
        kind: 'unknown',
        // Why the page it named was refused is the URL check's own text: said as it is.
        ...said(
          e.refusedPaymentUrl
            ? words('payment.existsRefusedPage', { why: e.refusedPaymentUrl })
            : words('payment.existsNoPage'),
        ),
      };
}

/** A refusal the service answered (a bad value, the keys, the account, the rate): nothing was created. */
async function recordRejected(
  ctx: ChargeContext,
  base: SendBase,
  e: ValidationError | AuthenticationError | ForbiddenError | NotFoundError | RateLimitedError,
  isResend: boolean,
): Promise<ChargeOutcome> {
  const now = ctx.clock.now();
  const field = e instanceof ValidationError ? formField(e.field) : undefined;
  const message = e.serviceMessage ?? e.message;
  await ctx.events.append({
    ...base,
    kind: 'initialize_rejected',
    // On a re-send, a refusal does not prove the first send created nothing: stay UNKNOWN.
    status: isResend ? null : 'REJECTED',
    receivedAt: now,
    payload: JSON.stringify({
      http_status: e.status ?? null,
      kind: e.kind,
      message,
      field: e instanceof ValidationError ? (e.field ?? null) : null,
    }),
    statusMessage: message,
    note: isResend ? 'refused on re-send; the first send may still have created it' : null,
  });
  // The service's own words are said as they are; ours in the person's language.
  const w = e.serviceMessage ? words('errors.asIs', { text: e.serviceMessage }) : e.words;
  return { kind: 'rejected', message, ...(w ? { words: w } : {}), ...(field ? { field } : {}) };
}

/** No answer, or one that cannot be read: the service may have created the payment. */
async function recordUnknown(ctx: ChargeContext, base: SendBase, e: unknown): Promise<ChargeOutcome> {
  const now = ctx.clock.now();
  const message = isServiceError(e) ? e.message : 'the request failed in an unexpected way';
  await ctx.events.append({
    ...base,
    kind: 'initialize_unknown',
    status: 'UNKNOWN',
    receivedAt: now,
    payload: JSON.stringify({
      kind: isServiceError(e) ? e.kind : 'internal',
      http_status: isServiceError(e) ? (e.status ?? null) : null,
      message,
    }),
    statusMessage: message,
  });
  ctx.deps.logger?.warn(
    { reference: base.merchantReference, kind: isServiceError(e) ? e.kind : 'internal' },
    'initialize outcome unknown',
  );
  return {
    kind: 'unknown',
    ...said(
      words(
        'payment.unknown',
        isServiceError(e) ? nest('reason', e.words, message) : { reasonId: 'payment.unexpected' },
      ),
    ),
  };
}
