// The one mapper from a thrown value to what the renderer sees: each error family keeps its kind,
// message and fields; anything else is 'internal' with no detail.
import { words } from '../../main/words/words.shared.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toIpcError } from '../../main/ipc/dispatch.js';
import { DeskError } from '../../main/errors.shared.js';
import { AppError } from '../../main/app/errors.js';
import { PaymentError, fieldErrors } from '../../main/collections/errors.js';
import { ReconcileError } from '../../main/reconcile/errors.js';
import { ReportError } from '../../main/reports/errors.js';
import { SettingsError } from '../../main/settings/settings.js';
import { ProfileDatabaseError } from '../../main/settings/profile-database.js';
import { MoneyError } from '../../main/money/index.js';
import { SecretStoreUnavailableError, SecretValueError } from '../../main/secrets/secret-store.js';
import { UsageError } from '../../main/cli/command.js';
import { StoreError } from '../../main/store/sqlite/connection.js';
import { MalformedAnswerError } from '../../main/store/sqlite/balances.js';
import {
  AuthenticationError,
  CardDataError,
  DuplicateReferenceError,
  NetworkError,
  RateLimitedError,
  ServiceKeyError,
  UnknownOutcomeError,
  UnreadableResponseError,
  ValidationError,
  WireFormatError,
} from '../../main/service/errors.js';

const INTERNAL = {
  kind: 'internal',
  message: 'Something went wrong inside Merchant Desk; the details are in the log.',
  words: { id: 'errors.internal' },
};

describe('toIpcError', () => {
  it('maps each capability error to its kind, message and field', () => {
    expect(toIpcError(new AppError('not_configured', 'Set the keys in Settings', { field: 'publicKey' }))).toEqual({
      kind: 'not_configured',
      message: 'Set the keys in Settings',
      field: 'publicKey',
    });
    expect(toIpcError(new PaymentError('expired', 'the payment page expired'))).toEqual({
      kind: 'expired',
      message: 'the payment page expired',
    });
    const luhn = words('payment.err.numberLuhn');
    const cvv = words('payment.err.cvv', { digits: 3, brand: 'Visa' });
    expect(toIpcError(fieldErrors({ card_no: luhn, cvv }))).toEqual({
      kind: 'validation',
      message: 'card number is not valid (check digit); check for a typo (and 1 more)',
      words: { id: 'payment.err.andMore', values: { firstId: 'payment.err.numberLuhn', more: 1 } },
      field: 'card_no',
      fields: {
        card_no: 'card number is not valid (check digit); check for a typo',
        cvv: 'CVV must be 3 digits for Visa',
      },
      fieldWords: { card_no: luhn, cvv },
    });
    expect(toIpcError(new ReconcileError('not_found', 'no such exception', 'id'))).toEqual({
      kind: 'not_found',
      message: 'no such exception',
      field: 'id',
    });
    expect(toIpcError(new ReportError('cancelled', 'export cancelled'))).toEqual({
      kind: 'cancelled',
      message: 'export cancelled',
    });
  });

  it('maps settings, secrets and money errors as before: validation with the field, keychain_unavailable', () => {
    // A reason given as text (not words) keeps its English; the window says it inside "valeur refusée (…)".
    expect(toIpcError(new SettingsError('callbackReceiver.port', 'must be 0 to 65535'))).toMatchObject({
      kind: 'validation',
      message: 'callbackReceiver.port must be 0 to 65535',
      field: 'callbackReceiver.port',
      fields: { 'callbackReceiver.port': 'must be 0 to 65535' },
    });
    expect(toIpcError(new SecretValueError('secret-key', 'is empty'))).toEqual({
      kind: 'validation',
      message: 'secret-key: is empty',
      field: 'secret-key',
    });
    expect(toIpcError(new SecretStoreUnavailableError('the OS keychain is unavailable'))).toEqual({
      kind: 'keychain_unavailable',
      message: 'the OS keychain is unavailable',
    });
    expect(toIpcError(new MoneyError('currency', 'unknown currency code "XYZ"'))).toEqual({
      kind: 'validation',
      message: 'currency: unknown currency code "XYZ"',
      field: 'currency',
    });
  });

  it("maps the service's errors to their kind, with a validation field and nothing of the service's own detail", () => {
    expect(
      toIpcError(
        new ValidationError('description must be 10 to 30 characters', 'description', {
          status: 422,
          serviceMessage: 'raw',
        }),
      ),
    ).toEqual({
      kind: 'validation',
      message: 'description must be 10 to 30 characters',
      field: 'description',
    });
    expect(toIpcError(new ValidationError('the service rejected the request', undefined, { status: 400 }))).toEqual({
      kind: 'validation',
      message: 'the service rejected the request',
    });
    expect(toIpcError(new DuplicateReferenceError('already sent', 'ref-1', 'int-1', 'https://pay.example/x'))).toEqual({
      kind: 'validation',
      message: 'already sent',
      field: 'merchant_reference',
    });
    expect(toIpcError(new AuthenticationError('The keys were refused', { status: 401 }))).toEqual({
      kind: 'authentication',
      message: 'The keys were refused',
    });
    expect(toIpcError(new RateLimitedError('wait 30 s', 30_000))).toEqual({
      kind: 'rate_limited',
      message: 'wait 30 s',
    });
    expect(toIpcError(new NetworkError('no answer'))).toEqual({ kind: 'network', message: 'no answer' });
    expect(toIpcError(new UnreadableResponseError('not JSON', '<html>'))).toEqual({
      kind: 'unreadable',
      message: 'not JSON',
    });
    expect(toIpcError(new UnknownOutcomeError('no answer in time', { reason: 'timeout' }))).toEqual({
      kind: 'unknown_outcome',
      message: 'no answer in time',
    });
  });

  it('keeps errors that are not meant for the user internal, with no detail', () => {
    for (const e of [
      new ProfileDatabaseError('cannot read /home/x/.config/merchant-desk/active-profile.json: EACCES'),
      new UsageError('--limit must be a whole number'),
      new StoreError('database written by a newer version'),
      new MalformedAnswerError('balances: duplicate currency'),
      new CardDataError('card_no', 'fails the Luhn check'),
      new ServiceKeyError('not a PEM public key'),
      new WireFormatError('merchant_balances[2].available_balance', 'not a decimal'),
      new DeskError('validation', 'not exposed by default'),
      new TypeError('cannot read properties of undefined'),
      'a thrown string',
      undefined,
    ]) {
      expect(toIpcError(e)).toEqual(INTERNAL);
    }
  });

  it('maps a zod error, an abort, and an unknown error marked expose', () => {
    const zod = z.object({ currency: z.string().length(3, 'must be 3 letters') }).safeParse({ currency: 'UGXX' });
    expect(toIpcError(zod.error)).toMatchObject({
      kind: 'validation',
      message: 'currency: must be 3 letters',
      field: 'currency',
      fields: { currency: 'must be 3 letters' },
    });
    expect(toIpcError(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toMatchObject({
      kind: 'cancelled',
      message: 'cancelled',
    });
    expect(toIpcError(Object.assign(new Error('exposed'), { expose: true }))).toEqual({
      kind: 'validation',
      message: 'exposed',
    });
  });

  it('one family: every capability error is a DeskError with its own class name', () => {
    const errors = [
      new AppError('conflict', 'x'),
      new PaymentError('conflict', 'x'),
      new SettingsError('a', 'b'),
      new MoneyError('a', 'b'),
      new NetworkError('x'),
    ];
    for (const e of errors) expect(e).toBeInstanceOf(DeskError);
    expect(errors.map((e) => e.name)).toEqual([
      'AppError',
      'PaymentError',
      'SettingsError',
      'MoneyError',
      'NetworkError',
    ]);
  });
});
