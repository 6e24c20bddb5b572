import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import { AppError } from '../../main/app/errors.js';
import { RateLimitedError, UnavailableError, ValidationError } from '../../main/service/errors.js';

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), text: () => lines.join('') };
}

const ok: HandlerTable = {
  'app.info': () => ({ version: '1' }),
  'balances.history': (req) => req,
};

describe('dispatch', () => {
  it('refuses a channel that is not in the contract, even if a handler exists', async () => {
    const d = createDispatcher({ ...ok, 'secret.dump': () => 'x' });
    expect(await d('secret.dump', {})).toEqual({
      ok: false,
      error: {
        kind: 'validation',
        message: 'unknown channel "secret.dump"',
        words: { id: 'errors.unknownChannel' },
      },
    });
    expect(await d('__proto__', {})).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(await d(42, {})).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });

  it('validates the request with the contract schema and names the field', async () => {
    const d = createDispatcher(ok);
    const r = await d('balances.history', { currency: 'uganda shillings', from: -5 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('validation');
    expect(r.error.field).toBe('currency');
    expect(r.error.message).toMatch(/^currency: must be a 3-letter currency code/);
    expect(Object.keys(r.error.fields!)).toEqual(['currency', 'from']);
  });

  it('passes the parsed request (zod output: trimmed, upper-cased) to the handler', async () => {
    const d = createDispatcher(ok);
    expect(await d('balances.history', { currency: ' ugx ' })).toEqual({ ok: true, value: { currency: 'UGX' } });
  });

  it('maps service errors to their kind and keeps a validation field', async () => {
    const d = createDispatcher({
      'app.info': () => {
        throw new ValidationError('description must be 10 to 30 characters', 'description', { status: 422 });
      },
      'app.status': () => {
        throw new RateLimitedError('The service asked us to wait 30 s', 30_000);
      },
      'balances.latest': () => {
        throw new UnavailableError('The service is unavailable (HTTP 503)', { status: 503 });
      },
    });
    expect(await d('app.info', {})).toEqual({
      ok: false,
      error: { kind: 'validation', message: 'description must be 10 to 30 characters', field: 'description' },
    });
    expect(await d('app.status', {})).toMatchObject({ ok: false, error: { kind: 'rate_limited' } });
    expect(await d('balances.latest', {})).toMatchObject({
      ok: false,
      error: { kind: 'unavailable', message: 'The service is unavailable (HTTP 503)' },
    });
  });

  it('shows AppError and any error marked expose as they are', async () => {
    const exposed = Object.assign(new Error('card_no: fails the Luhn check'), {
      expose: true,
      kind: 'validation',
      field: 'card_no',
    });
    const d = createDispatcher({
      'app.info': () => {
        throw new AppError('not_configured', 'Set the keys in Settings', { field: 'publicKey' });
      },
      'app.status': () => {
        throw exposed;
      },
    });
    expect(await d('app.info', {})).toEqual({
      ok: false,
      error: { kind: 'not_configured', message: 'Set the keys in Settings', field: 'publicKey' },
    });
    expect(await d('app.status', {})).toEqual({
      ok: false,
      error: { kind: 'validation', message: 'card_no: fails the Luhn check', field: 'card_no' },
    });
  });

  // Issue 39, item 5: the words say what failed, what it left changed and where the log is (they said
  // only "Something went wrong inside Merchant Desk; the details are in the log.").
  it('hides an unexpected error behind what failed, what it changed and where the log is; logs its detail, never the request', async () => {
    const { logger, text } = capturingLogger();
    const d = createDispatcher(
      {
        'balances.history': () => {
          throw new TypeError('cannot read properties of undefined (reading "rows") at /work/main/x.ts');
        },
        'callbacks.import': () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      },
      logger,
      undefined,
      '/data/logs/merchant-desk.log',
    );
    const r = await d('balances.history', { currency: 'UGX', from: 4242424242424242 });
    expect(r).toEqual({
      ok: false,
      error: {
        kind: 'internal',
        message:
          'Reading the balance history failed unexpectedly; nothing was changed. The details are in /data/logs/merchant-desk.log.',
        words: {
          id: 'failure.unexpected',
          values: {
            doingId: 'failure.doing.balances.history',
            changesId: 'failure.nothingChanged',
            log: '/data/logs/merchant-desk.log',
          },
        },
      },
    });
    expect(await d('callbacks.import', { content: '{}' })).toEqual({
      ok: false,
      error: {
        kind: 'internal',
        message:
          'Importing callbacks failed unexpectedly; the callbacks stored before it stopped are kept, and importing the file again is safe: each callback is stored once. The details are in /data/logs/merchant-desk.log.',
        words: expect.objectContaining({ id: 'failure.unexpected' }) as unknown,
      },
    });
    expect(text()).toContain('Maximum call stack size exceeded');
    expect(text()).toContain('cannot read properties of undefined');
    expect(text()).toContain('balances.history');
    expect(text()).not.toContain('4242424242424242');
  });

  it('answers null, not undefined, for a handler that returns nothing (plain JSON over both bridges)', async () => {
    const d = createDispatcher({ 'app.info': () => undefined });
    expect(await d('app.info', {})).toEqual({ ok: true, value: null });
  });
});
