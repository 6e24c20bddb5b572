// What happens to one charge, from the form to a result: a reducer with no React, so it can be tested
// plainly. The form's fields and the card stay in the screen; this holds only where the charge is, what the
// agent is told (banner), and which fields main or the service found wrong.
//
// The charge in flight is known by the operation id the screen gave it: only main's progress of that
// operation (payments.progress) moves it, never a push about whatever collection changed, so a screen
// never takes another desk's payment, or an earlier one of its own, for the one it is charging.
//
//   form --send--> sending --progress (own, PENDING)--> waiting (payment window open)
//   sending | waiting | tracking --answered--> confirm (needs confirmation) | tracking (pending, result,
//                                              unknown: PaymentResult polls it and offers a re-send) | form
//   confirm --confirmed--> sending;  confirm --declined--> form;  any --failed--> form;  any --reset--> form
import { nest, words, type Words } from '../../../../main/words/words.shared.js';
import type { ChargeOutcome, ChargeResponse } from '../../../../main/ipc/contract/collections.js';
import type { DeskError } from '../../desk.js';

export type ChargePhase =
  | { kind: 'form' }
  /** Charge pressed; `reference` once its intent is recorded (the card is then on its way). */
  | { kind: 'sending'; operationId: string; reference: string | null }
  | { kind: 'waiting'; operationId: string; reference: string }
  | { kind: 'confirm'; token: string; message: string; words?: Words | undefined }
  | { kind: 'tracking'; reference: string; outcome: ChargeOutcome };

/** A problem to say: words (said in the person's language) or a text as main sent it. */
export type Problem = Words | string;

export interface ChargeState {
  phase: ChargePhase;
  banner: DeskError | Problem | undefined;
  /** Errors from main or the service, by field; a field's entry goes when the agent edits it. */
  fieldErrors: Record<string, Problem>;
}

export type ChargeEvent =
  /** The agent pressed Charge: an earlier banner goes, whether or not the form is valid. */
  | { type: 'attempt' }
  | { type: 'send'; operationId: string }
  /** Main says how an operation moved: its own collection's reference and status. */
  | { type: 'progress'; operationId: string; reference: string; status: string }
  /** What main answered to a charge, a confirmation or a re-send. */
  | { type: 'answered'; response: ChargeResponse }
  | { type: 'failed'; error: DeskError }
  | { type: 'confirmed'; operationId: string }
  | { type: 'declined' }
  | { type: 'fieldEdited'; field: string }
  | { type: 'reset' };

export const INITIAL_CHARGE: ChargeState = { phase: { kind: 'form' }, banner: undefined, fieldErrors: {} };

/** The agent cannot edit or send while a charge is on its way or waits for an answer. */
export function isBusy(phase: ChargePhase): boolean {
  return phase.kind === 'sending' || phase.kind === 'waiting' || phase.kind === 'confirm';
}

function answered(state: ChargeState, res: ChargeResponse): ChargeState {
  const o = res.outcome;
  if (o.kind === 'needs_confirmation')
    return { ...state, phase: { kind: 'confirm', token: o.token, message: o.message, words: o.words } };
  if (o.kind === 'rejected') {
    return {
      phase: { kind: 'form' },
      banner: words('payment.refusedBanner', nest('reason', o.words, o.message)),
      fieldErrors: o.field ? { [o.field]: o.words ?? o.message } : state.fieldErrors,
    };
  }
  if (!res.collection) return { ...state, phase: { kind: 'form' }, banner: o.words ?? o.message };
  return { ...state, phase: { kind: 'tracking', reference: res.collection.merchantReference, outcome: o } };
}

/** Main's word about operation `operationId`: moves the charge only if it is the one in flight. */
function progressed(state: ChargeState, e: Extract<ChargeEvent, { type: 'progress' }>): ChargeState {
  const p = state.phase;
  if ((p.kind !== 'sending' && p.kind !== 'waiting') || p.operationId !== e.operationId) return state;
  if (e.status === 'PENDING' && p.kind === 'sending')
    return { ...state, phase: { kind: 'waiting', operationId: p.operationId, reference: e.reference } };
  if (p.kind === 'sending' && p.reference !== e.reference) return { ...state, phase: { ...p, reference: e.reference } };
  return state;
}

export function chargeReducer(state: ChargeState, event: ChargeEvent): ChargeState {
  switch (event.type) {
    case 'attempt':
      return state.banner === undefined ? state : { ...state, banner: undefined };
    case 'send':
      return state.phase.kind === 'form'
        ? {
            phase: { kind: 'sending', operationId: event.operationId, reference: null },
            banner: undefined,
            fieldErrors: {},
          }
        : state;
    case 'progress':
      return progressed(state, event);
    case 'answered':
      return answered(state, event.response);
    case 'failed': {
      const e = event.error;
      const fieldErrors: Record<string, Problem> = e.fieldWords
        ? e.fieldWords
        : e.fields
          ? e.fields
          : e.field
            ? { [e.field]: e.words ?? e.message }
            : state.fieldErrors;
      return { ...state, phase: { kind: 'form' }, banner: e, fieldErrors };
    }
    case 'confirmed':
      return state.phase.kind === 'confirm'
        ? { ...state, phase: { kind: 'sending', operationId: event.operationId, reference: null } }
        : state;
    case 'declined':
      return state.phase.kind === 'confirm'
        ? { ...state, phase: { kind: 'form' }, banner: words('payment.notChargedAgain') }
        : state;
    case 'fieldEdited': {
      if (!(event.field in state.fieldErrors)) return state;
      const { [event.field]: _gone, ...rest } = state.fieldErrors;
      return { ...state, fieldErrors: rest };
    }
    case 'reset':
      return INITIAL_CHARGE;
  }
}
