// The charge state machine (charge-machine.ts) wired to main: payments.charge, the repeat confirmation,
// and the collections.updated event that says the payment window is open.
import { useCallback, useReducer } from 'react';
import type { ChargeResponse } from '../../../../main/ipc/contract/collections.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { DeskError, invoke } from '../../desk.js';
import { useDeskEvent } from '../../hooks.js';
import { wipe } from './CardSection.js';
import { INITIAL_CHARGE, chargeReducer } from './charge-machine.js';

function asDeskError(e: unknown): DeskError {
  return e instanceof DeskError
    ? e
    : new DeskError({ kind: 'internal', message: 'Something went wrong; the details are in the log.' });
}

/** `onProblem` runs when the agent has a field to fix (refused or failed), e.g. to focus it. */
export function useCharge(onProblem: () => void) {
  const [state, dispatch] = useReducer(chargeReducer, INITIAL_CHARGE);

  // While a charge is in flight main reports its collection (PENDING: the payment window is open).
  // (Pushes come merged: the charge's own PENDING is among the collections listed.)
  useDeskEvent('collections.updated', (e) => {
    const pending = e.changed.find((c) => c.status === 'PENDING');
    if (pending) dispatch({ type: 'windowOpened', reference: pending.reference });
  });

  const settle = useCallback(
    (response: ChargeResponse) => {
      dispatch({ type: 'answered', response });
      if (response.outcome.kind === 'rejected') onProblem();
    },
    [onProblem],
  );

  const failed = useCallback(
    (e: unknown) => {
      dispatch({ type: 'failed', error: asDeskError(e) });
      onProblem();
    },
    [onProblem],
  );

  /** Sends the card once; the request's card is wiped whatever main answers. */
  const charge = async (request: RequestOf<'payments.charge'>) => {
    dispatch({ type: 'send' });
    try {
      settle(await invoke('payments.charge', request));
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
    dispatch({ type: 'confirmed' });
    try {
      settle(await invoke('payments.confirmRepeat', { token }));
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
