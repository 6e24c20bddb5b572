// The charge state machine (charge-machine.ts) wired to main: payments.charge and the repeat
// confirmation, each with an operation id of its own, and main's payments.progress of that operation
// (its reference once the intent is recorded, PENDING once the payment window is open). Pushes about
// other collections (collections.updated: another desk's payment, a pulled batch) never move a charge.
import { useCallback, useReducer, useRef } from 'react';
import type { ChargeResponse } from '../../../../main/ipc/contract/collections.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { DeskError, invoke, windowFault } from '../../desk.js';
import { useDeskEvent } from '../../hooks.js';
import { wipe } from './CardSection.js';
import { INITIAL_CHARGE, chargeReducer } from './charge-machine.js';

function asDeskError(e: unknown): DeskError {
  return e instanceof DeskError ? e : windowFault('payments.charge');
}

/** A new operation's id: 32 hex digits, random (getRandomValues works in any context, unlike randomUUID). */
export function newOperationId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `onProblem` runs when the agent has a field to fix (refused or failed), e.g. to focus it; `onCardSent`
 * when the card of the charge in flight was sent to the service (its intent recorded, or an answer that
 * says so), and never for a refusal before anything was sent or for the repeat question.
 */
export function useCharge(onProblem: () => void, onCardSent: () => void = () => {}) {
  const [state, dispatch] = useReducer(chargeReducer, INITIAL_CHARGE);
  /** The operation in flight (a charge or a confirmed repeat), whose progress says its card was sent. */
  const inFlight = useRef<string | null>(null);

  // Main's word on an operation; the machine takes it only for the charge in flight.
  useDeskEvent('payments.progress', (e) => {
    dispatch({ type: 'progress', ...e });
    if (e.operationId === inFlight.current) onCardSent();
  });

  const settle = useCallback(
    (response: ChargeResponse) => {
      dispatch({ type: 'answered', response });
      // Any answer but the repeat question comes from a saved intent, whose card was sent.
      if (response.outcome.kind !== 'needs_confirmation') onCardSent();
      if (response.outcome.kind === 'rejected') onProblem();
    },
    [onProblem, onCardSent],
  );

  const failed = useCallback(
    (e: unknown) => {
      dispatch({ type: 'failed', error: asDeskError(e) });
      onProblem();
    },
    [onProblem],
  );

  /** Sends the card once; the request's card is wiped whatever main answers. */
  const charge = async (request: Omit<RequestOf<'payments.charge'>, 'operationId'>) => {
    const operationId = newOperationId();
    inFlight.current = operationId;
    dispatch({ type: 'send', operationId });
    try {
      settle(await invoke('payments.charge', { ...request, operationId }));
    } catch (err) {
      failed(err);
    } finally {
      wipe(request.card);
    }
  };

  const confirmRepeat = async (yes: boolean) => {
    if (state.phase.kind !== 'confirm') return;
    const token = state.phase.token;
    if (!yes) {
      dispatch({ type: 'declined' });
      await invoke('payments.cancelRepeat', { token }).catch(() => {});
      return;
    }
    const operationId = newOperationId();
    inFlight.current = operationId;
    dispatch({ type: 'confirmed', operationId });
    try {
      settle(await invoke('payments.confirmRepeat', { token, operationId }));
    } catch (err) {
      failed(err);
    }
  };

  return {
    ...state,
    charge,
    confirmRepeat,
    settle,
    failed,
    attempt: () => dispatch({ type: 'attempt' }),
    fieldEdited: (field: string) => dispatch({ type: 'fieldEdited', field }),
    reset: () => dispatch({ type: 'reset' }),
  };
}
