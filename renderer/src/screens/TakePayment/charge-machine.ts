// What happens to one charge, from the form to a result: a reducer with no React, so it can be tested
// plainly. The form's fields and the card stay in the screen; this holds only where the charge is, what the
// agent is told (banner) and which fields main or the service found wrong.
//
//   form --send--> sending --windowOpened--> waiting (payment window open)
//   sending | waiting | tracking --answered--> confirm (needs confirmation) | tracking (pending, result,
//                                              unknown: PaymentResult polls it and offers a re-send) | form
//   confirm --confirmed--> sending;  confirm --declined--> form;  any --failed--> form;  any --reset--> form
import type { ChargeOutcome, ChargeResponse } from '../../../../main/ipc/contract/collections.js';
import type { DeskError } from '../../desk.js';

export type ChargePhase =
  | { kind: 'form' }
  | { kind: 'sending' }
  | { kind: 'waiting'; reference: string }
  | { kind: 'confirm'; token: string; message: string }
  | { kind: 'tracking'; reference: string; outcome: ChargeOutcome };

export interface ChargeState {
  phase: ChargePhase;
  banner: DeskError | string | undefined;
  /** Errors from main or the service, by field; a field's entry goes when the agent edits it. */
  fieldErrors: Record<string, string>;
}

export type ChargeEvent =
  /** The agent pressed Charge: an earlier banner goes, whether or not the form is valid. */
  | { type: 'attempt' }
  | { type: 'send' }
  /** Main reported the collection PENDING: the payment window is open. */
  | { type: 'windowOpened'; reference: string }
  /** What main answered to a charge, a confirmation or a re-send. */
  | { type: 'answered'; response: ChargeResponse }
  | { type: 'failed'; error: DeskError }
  | { type: 'confirmed' }
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
    return { ...state, phase: { kind: 'confirm', token: o.token, message: o.message } };
  if (o.kind === 'rejected') {
    return {
      phase: { kind: 'form' },
      banner: `The service refused the payment: ${o.message}. Nothing was charged; the card details were cleared, type them again.`,
      fieldErrors: o.field ? { [o.field]: o.message } : state.fieldErrors,
    };
  }
  if (!res.collection) return { ...state, phase: { kind: 'form' }, banner: o.message };
  return { ...state, phase: { kind: 'tracking', reference: res.collection.merchantReference, outcome: o } };
}

export function chargeReducer(state: ChargeState, event: ChargeEvent): ChargeState {
  switch (event.type) {
    case 'attempt':
      return state.banner === undefined ? state : { ...state, banner: undefined };
    case 'send':
      return state.phase.kind === 'form' ? { phase: { kind: 'sending' }, banner: undefined, fieldErrors: {} } : state;
    case 'windowOpened':
      return state.phase.kind === 'sending'
        ? { ...state, phase: { kind: 'waiting', reference: event.reference } }
        : state;
    case 'answered':
      return answered(state, event.response);
    case 'failed': {
      const e = event.error;
      const fieldErrors = e.fields ? e.fields : e.field ? { [e.field]: e.message } : state.fieldErrors;
      return { phase: { kind: 'form' }, banner: e, fieldErrors };
    }
    case 'confirmed':
      return state.phase.kind === 'confirm' ? { ...state, phase: { kind: 'sending' } } : state;
    case 'declined':
      return state.phase.kind === 'confirm'
        ? { ...state, phase: { kind: 'form' }, banner: 'Not charged again.' }
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
