// Take payment's charge state machine (renderer/src/screens/TakePayment/charge-machine.ts) without React:
// form -> sending -> waiting / confirm / tracking / back to the form, with what the agent is told. The
// charge in flight moves only with main's progress of its own operation (issue 28, problem 1).
import { english, type Words } from '../../main/words/words.shared.js';
import { describe, expect, it } from 'vitest';
import type { ChargeResponse, CollectionRow } from '../../main/ipc/contract/collections.js';
import {
  INITIAL_CHARGE,
  chargeReducer,
  isBusy,
  type ChargeEvent,
  type ChargeState,
} from '../../renderer/src/screens/TakePayment/charge-machine.js';
import { DeskError } from '../../renderer/src/desk.js';

const collection = { merchantReference: 'MD-0001-abcdef' } as CollectionRow;
const run = (events: ChargeEvent[], from: ChargeState = INITIAL_CHARGE) => events.reduce(chargeReducer, from);
const answer = (response: ChargeResponse): ChargeEvent => ({ type: 'answered', response });
const OP = 'a'.repeat(32);
const send: ChargeEvent = { type: 'send', operationId: OP };
const progress = (status: string, reference = 'MD-0001-abcdef', operationId = OP): ChargeEvent => ({
  type: 'progress',
  operationId,
  reference,
  status,
});

describe('charge state machine', () => {
  it('sends from the form, learns its reference when its intent is recorded, shows the open payment window, then tracks the answer', () => {
    const sending = run([send]);
    expect(sending.phase).toEqual({ kind: 'sending', operationId: OP, reference: null });
    expect(isBusy(sending.phase)).toBe(true);
    const recorded = chargeReducer(sending, progress('INTENT'));
    expect(recorded.phase).toEqual({ kind: 'sending', operationId: OP, reference: 'MD-0001-abcdef' });
    const waiting = chargeReducer(recorded, progress('PENDING'));
    expect(waiting.phase).toEqual({ kind: 'waiting', operationId: OP, reference: 'MD-0001-abcdef' });
    const outcome = { kind: 'completed', message: 'Paid.', verified: true } as const;
    const done = chargeReducer(waiting, answer({ collection, outcome }));
    expect(done.phase).toEqual({ kind: 'tracking', reference: 'MD-0001-abcdef', outcome });
    expect(isBusy(done.phase)).toBe(false);
  });

  it("never takes another operation's payment for its own: another desk's or an earlier charge's progress moves nothing", () => {
    expect(run([progress('PENDING', 'MD-OTHER')])).toBe(INITIAL_CHARGE);
    const sending = run([send]);
    expect(chargeReducer(sending, progress('PENDING', 'MD-OTHER', 'b'.repeat(32)))).toBe(sending);
    const waiting = run([progress('PENDING')], sending);
    expect(chargeReducer(waiting, progress('COMPLETED', 'MD-OTHER', 'b'.repeat(32)))).toBe(waiting);
    // Its own collection moving on while the window is open keeps it waiting on the same reference.
    expect(chargeReducer(waiting, progress('COMPLETED')).phase).toEqual(waiting.phase);
  });

  it('sends only from the form, and clears the earlier banner and field errors', () => {
    const refused = run([
      send,
      answer({ collection: null, outcome: { kind: 'rejected', message: 'bad card', field: 'card.number' } }),
    ]);
    expect(refused.fieldErrors).toEqual({ 'card.number': 'bad card' });
    const again = chargeReducer(refused, send);
    expect(again).toEqual({
      phase: { kind: 'sending', operationId: OP, reference: null },
      banner: undefined,
      fieldErrors: {},
    });
    expect(chargeReducer(again, send)).toBe(again);
  });

  it('a refusal returns to the form saying nothing was charged', () => {
    const s = run([send, answer({ collection: null, outcome: { kind: 'rejected', message: 'Card declined' } })]);
    expect(s.phase).toEqual({ kind: 'form' });
    // Words the window says in the person's language; in English:
    expect(english(s.banner as Words)).toBe(
      'The service refused the payment: Card declined. Nothing was charged; the card details were cleared, type them again.',
    );
  });

  it('an answer with no collection returns to the form with its message', () => {
    const s = run([send, answer({ collection: null, outcome: { kind: 'unknown', message: 'No answer.' } })]);
    expect(s.phase).toEqual({ kind: 'form' });
    expect(s.banner).toBe('No answer.');
  });

  it('an unknown answer with a collection is tracked (its page offers the re-send), and the re-send answer moves it on', () => {
    const unknown = run([send, answer({ collection, outcome: { kind: 'unknown', message: 'No answer.' } })]);
    expect(unknown.phase.kind).toBe('tracking');
    const outcome = { kind: 'pending', message: 'Open.', paymentUrl: 'https://pay.example/x' } as const;
    expect(chargeReducer(unknown, answer({ collection, outcome })).phase).toEqual({
      kind: 'tracking',
      reference: 'MD-0001-abcdef',
      outcome,
    });
  });

  it('a repeat charge asks first: confirming sends again, declining returns to the form', () => {
    const confirm = run([
      send,
      answer({
        collection: null,
        outcome: { kind: 'needs_confirmation', token: 't1', message: 'Same card a minute ago.' },
      }),
    ]);
    expect(confirm.phase).toEqual({
      kind: 'confirm',
      token: 't1',
      message: 'Same card a minute ago.',
      words: undefined,
    });
    expect(isBusy(confirm.phase)).toBe(true);
    expect(chargeReducer(confirm, { type: 'confirmed', operationId: 'c'.repeat(32) }).phase).toEqual({
      kind: 'sending',
      operationId: 'c'.repeat(32),
      reference: null,
    });
    const declined = chargeReducer(confirm, { type: 'declined' });
    expect(declined.phase).toEqual({ kind: 'form' });
    expect(english(declined.banner as Words)).toBe('Not charged again.');
    expect(run([{ type: 'confirmed', operationId: OP }, { type: 'declined' }])).toBe(INITIAL_CHARGE);
  });

  it('a failure returns to the form with its field errors', () => {
    const error = new DeskError({ kind: 'validation', message: 'Check the fields.', fields: { amount: 'Too much.' } });
    const s = run([send, { type: 'failed', error }]);
    expect(s).toEqual({ phase: { kind: 'form' }, banner: error, fieldErrors: { amount: 'Too much.' } });
    const one = run([
      send,
      { type: 'failed', error: new DeskError({ kind: 'validation', message: 'Bad e-mail.', field: 'customerEmail' }) },
    ]);
    expect(one.fieldErrors).toEqual({ customerEmail: 'Bad e-mail.' });
  });

  it('editing a field drops its error; an attempt drops the banner; reset starts over', () => {
    const error = new DeskError({ kind: 'validation', message: 'Check.', fields: { amount: 'A', currency: 'C' } });
    const s = run([send, { type: 'failed', error }, { type: 'fieldEdited', field: 'amount' }]);
    expect(s.fieldErrors).toEqual({ currency: 'C' });
    expect(chargeReducer(s, { type: 'fieldEdited', field: 'description' })).toBe(s);
    expect(chargeReducer(s, { type: 'attempt' }).banner).toBeUndefined();
    expect(chargeReducer(s, { type: 'reset' })).toEqual(INITIAL_CHARGE);
  });
});
