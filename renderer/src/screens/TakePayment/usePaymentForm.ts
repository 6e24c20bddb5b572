// The Take payment form's state: the payment details and the card as typed, which fields were touched,
// the local checks (card-input.shared.ts; main checks again), the charge (useCharge), and when the card
// is cleared. A solo desk clears the card as soon as the request is handed over. A team desk keeps it
// until main says the card was sent (its intent recorded): a refusal of the team database before anything
// was sent (the role, offline, the repeat question, the team's daily limit) wipes nothing the agent typed.
// Leaving the form, or the lock, clears it either way.
import { useCallback, useEffect, useMemo, useState, type FormEvent, type RefObject } from 'react';
import type { CardOptionView } from '../../../../main/ipc/contract/collections.js';
import { validateCardForm, type AmountLimits } from '../../../../main/collections/card-input.shared.js';
import { on, problemText } from '../../desk.js';
import { useWords } from '../../words/index.js';
import type { Words } from '../../../../main/words/words.shared.js';
import { useAppStatusSelect, useDeskQuery, useNow } from '../../hooks.js';
import { EMPTY_CARD, cardRequest, type CardState } from './CardSection.js';
import { useCharge } from './useCharge.js';

/** The payment's own fields (the card is apart: it is cleared on its own terms). */
export interface Details {
  amount: string;
  currency: string;
  description: string;
  customerName: string;
  customerEmail: string;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
}

const EMPTY_DETAILS: Details = {
  amount: '',
  currency: '',
  description: '',
  customerName: '',
  customerEmail: '',
  chargeCustomer: false,
  allowFinalStatusChange: true,
};

function limitsOf(o: CardOptionView | undefined): AmountLimits | null {
  return o
    ? {
        minMinor: o.minMinor,
        maxMinor: o.maxMinor,
        maxDailyMinor: o.maxDailyMinor,
        collectedTodayMinor: o.collectedTodayMinor,
        exponent: o.exponent,
      }
    : null;
}

/** Each field's problem as typed (the amount against the chosen currency's limits; the expiry against this minute). */
function useLocalErrors(
  details: Details,
  card: CardState,
  currency: string,
  limits: AmountLimits | null,
): Record<string, Words> {
  const now = useNow(60_000);
  return useMemo(
    () =>
      validateCardForm(
        {
          amount: details.amount,
          currency,
          description: details.description,
          customerName: details.customerName,
          customerEmail: details.customerEmail,
          chargeCustomer: details.chargeCustomer,
          allowFinalStatusChange: details.allowFinalStatusChange,
          card: cardRequest(card),
        },
        { now, limits },
      ),
    [details, card, currency, limits, now],
  );
}

/** What payments.charge is asked (without its operation id): the fields trimmed, empty optional ones left out. */
function chargeRequest(details: Details, currency: string, card: CardState) {
  return {
    amount: details.amount.trim(),
    currency,
    description: details.description,
    ...(details.customerName.trim() ? { customerName: details.customerName.trim() } : {}),
    ...(details.customerEmail.trim() ? { customerEmail: details.customerEmail.trim() } : {}),
    chargeCustomer: details.chargeCustomer,
    allowFinalStatusChange: details.allowFinalStatusChange,
    card: cardRequest(card),
  };
}

/**
 * The card typed and not yet sent goes when the form does (nothing lingers in the DOM inputs), and when the
 * app locks: a lock hides the screen but keeps it mounted (a payment already sent goes on), and the card
 * must not wait behind the lock screen for whoever unlocks.
 */
function useCardClearedOnLeaveAndLock(clear: () => void): void {
  useEffect(() => () => clear(), [clear]);
  useEffect(
    () =>
      on('lock.changed', (e) => {
        if (e.locked) clear();
      }),
    [clear],
  );
}

/** `formRef`: the form, where focus goes to the first field with a problem (or, for a new payment, the first field). */
export function usePaymentForm(formRef: RefObject<HTMLFormElement | null>) {
  const opts = useDeskQuery(
    'payments.options',
    {},
    { refreshOn: ['options.updated', 'collections.updated', 'callbacks.ingested'] },
  );
  const options = useMemo(() => opts.data ?? [], [opts.data]);
  const [details, setDetails] = useState<Details>(EMPTY_DETAILS);
  const [card, setCard] = useState<CardState>(EMPTY_CARD);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const focusFirstError = useCallback(
    () => setTimeout(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0),
    [formRef],
  );
  // The card was sent to the service: the form forgets it.
  const forgetCard = useCallback(() => setCard(EMPTY_CARD), []);
  const { phase, banner, fieldErrors: serverErrors, ...charge } = useCharge(focusFirstError, forgetCard);
  const keepCardUntilSent = useAppStatusSelect((s) => s?.profile === 'team');
  useCardClearedOnLeaveAndLock(forgetCard);

  const currency = details.currency || options[0]?.currency || '';
  const option = options.find((o) => o.currency === currency);
  const localErrors = useLocalErrors(details, card, currency, limitsOf(option));
  const { say } = useWords();
  const errorFor = (name: string): string | undefined =>
    problemText(say, serverErrors[name] ?? (submitted || touched[name] ? localErrors[name] : undefined));
  const edited = (field: string) => {
    setTouched((t) => ({ ...t, [field]: true }));
    charge.fieldEdited(field);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (phase.kind !== 'form') return;
    setSubmitted(true);
    charge.attempt();
    if (Object.keys(localErrors).length) {
      focusFirstError();
      return;
    }
    const request = chargeRequest(details, currency, card);
    // Solo: the card leaves the form now, cleared from state before main even answers. Team: once sent.
    if (!keepCardUntilSent) setCard(EMPTY_CARD);
    setTouched({});
    setSubmitted(false);
    await charge.charge(request);
  };

  const newPayment = () => {
    setDetails({ ...EMPTY_DETAILS, currency });
    setCard(EMPTY_CARD);
    setTouched({});
    setSubmitted(false);
    charge.reset();
    setTimeout(() => formRef.current?.querySelector<HTMLElement>('input, select')?.focus(), 0);
  };

  return {
    opts,
    options,
    option,
    currency,
    details,
    card,
    localErrors,
    submitted,
    errorFor,
    editDetails: (patch: Partial<Details>, field: string) => {
      setDetails((d) => ({ ...d, ...patch }));
      edited(field);
    },
    editCard: (patch: Partial<CardState>, field: string) => {
      setCard((c) => ({ ...c, ...patch }));
      edited(field);
    },
    submit,
    newPayment,
    phase,
    banner,
    charge,
  };
}
