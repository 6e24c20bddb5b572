// Take payment: a support agent types the card a customer reads out on the phone, charges it, and tells
// the customer the result. The card goes to main once (payments.charge), and nothing of the card is ever
// put in storage. A solo desk clears the card fields as soon as the request is handed over. A team desk
// keeps them until main says the card was sent (its intent recorded): a refusal of the team database
// before anything was sent (the role, offline, the repeat question, the team's daily limit) wipes
// nothing the agent typed. Leaving the form, or the lock, clears them either way.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { CardOptionView } from '../../../../main/ipc/contract/collections.js';
import { validateCardForm, type AmountLimits } from '../../../../main/collections/card-input.shared.js';
import { displayMinor } from '../../../../main/money/amount.shared.js';
import { on } from '../../desk.js';
import { useAppStatusSelect, useDeskQuery, useNow } from '../../hooks.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { EmptyState, ErrorBanner, Field, Loading, Screen } from '../../ui/index.js';
import { CardSection, EMPTY_CARD, cardRequest, type CardState } from './CardSection.js';
import { PaymentResult } from './PaymentResult.js';
import { isBusy } from './charge-machine.js';
import { useCharge } from './useCharge.js';
import './payments.css';
import { groupDigits } from '../../ui/format.js';
import { useMay } from '../../role.js';
import { TEAM_ACTIONS } from '../../../../main/team/roles.shared.js';

interface Details {
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

const WAITING_TEXT =
  'The payment page is open in its own window: go through it with the customer. Closing it leaves the payment pending.';

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

function LimitsLine({ o }: { o: CardOptionView }) {
  return (
    <p className="limits" data-testid="card-limits">
      <span>
        Min <strong>{displayMinor(o.minMinor, o.currency)}</strong>
      </span>
      <span>
        Max <strong>{displayMinor(o.maxMinor, o.currency)}</strong>
      </span>
      <span>
        Remaining today <strong>{displayMinor(o.remainingTodayMinor, o.currency)}</strong> of{' '}
        {displayMinor(o.maxDailyMinor, o.currency)}
      </span>
    </p>
  );
}

export function TakePaymentScreen() {
  // On a team desk taking payments is support's (and admins'): other roles are told so, not shown a form
  // that the team database would refuse.
  if (!useMay('takePayments')) {
    return (
      <Screen title="Take payment">
        <EmptyState title="Not for your role">
          {TEAM_ACTIONS.takePayments.who} Ask an admin for the support role if you need to take them.
        </EmptyState>
      </Screen>
    );
  }
  return <TakePaymentForm />;
}

function TakePaymentForm() {
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
  const formRef = useRef<HTMLFormElement>(null);
  const focusFirstError = useCallback(
    () =>
      setTimeout(() => {
        formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      }, 0),
    [],
  );
  // The card was sent to the service: the form forgets it.
  const forgetCard = useCallback(() => setCard(EMPTY_CARD), []);
  const { phase, banner, fieldErrors: serverErrors, ...charge } = useCharge(focusFirstError, forgetCard);
  const keepCardUntilSent = useAppStatusSelect((s) => s?.profile === 'team');

  const currency = details.currency || options[0]?.currency || '';
  const option = options.find((o) => o.currency === currency);
  const limits = limitsOf(option);

  const now = useNow(60_000);
  const localErrors = useMemo(
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

  const errorFor = (name: string): string | undefined =>
    serverErrors[name] ?? (submitted || touched[name] ? localErrors[name] : undefined);

  const editDetails = (patch: Partial<Details>, field: string) => {
    setDetails((d) => ({ ...d, ...patch }));
    setTouched((t) => ({ ...t, [field]: true }));
    charge.fieldEdited(field);
  };
  const editCard = (patch: Partial<CardState>, field: string) => {
    setCard((c) => ({ ...c, ...patch }));
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
    const request = {
      amount: details.amount.trim(),
      currency,
      description: details.description,
      ...(details.customerName.trim() ? { customerName: details.customerName.trim() } : {}),
      ...(details.customerEmail.trim() ? { customerEmail: details.customerEmail.trim() } : {}),
      chargeCustomer: details.chargeCustomer,
      allowFinalStatusChange: details.allowFinalStatusChange,
      card: cardRequest(card),
    };
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

  // Leaving the screen drops the card with the component's state; make sure nothing lingers in the DOM inputs.
  useEffect(() => () => setCard(EMPTY_CARD), []);
  // A lock hides the screen but keeps it mounted (a payment already sent goes on); a card typed and not yet
  // sent must not wait behind the lock screen for whoever unlocks: it is cleared and typed again.
  useEffect(
    () =>
      on('lock.changed', (e) => {
        if (e.locked) setCard(EMPTY_CARD);
      }),
    [],
  );

  const busy = isBusy(phase);
  const descLen = details.description.trim().length;

  if (phase.kind === 'tracking' || phase.kind === 'waiting') {
    return (
      <Screen title="Take payment">
        {phase.kind === 'waiting' ? (
          // The payment window is open: payments.charge answers when it redirects or is closed. A callback
          // that arrives first already shows here.
          <PaymentResult
            key={phase.reference}
            reference={phase.reference}
            outcome={{ kind: 'pending', message: WAITING_TEXT, paymentUrl: '' }}
            inFlight
          />
        ) : (
          <PaymentResult
            key={phase.reference}
            reference={phase.reference}
            outcome={phase.outcome}
            onSettled={charge.settle}
            onError={charge.failed}
            onNew={newPayment}
          />
        )}
      </Screen>
    );
  }

  return (
    <Screen title="Take payment">
      <ErrorBanner error={opts.error} title="Could not read the card options" />
      {opts.loading && <Loading what="card options" />}
      {opts.data && options.length === 0 && (
        <EmptyState title="No active card option">
          The service offers no active card collection option; check Payment options.
        </EmptyState>
      )}
      {phase.kind === 'sending' && (
        <div className="banner info" role="status">
          {phase.reference ? (
            <span>
              Sending payment <span className="mono">{phase.reference}</span> to the service…
            </span>
          ) : (
            'Sending the payment to the service…'
          )}
        </div>
      )}
      <ErrorBanner error={banner} />
      {options.length > 0 && (
        <form
          ref={formRef}
          onSubmit={(e) => void submit(e)}
          aria-label="Take payment"
          noValidate
          className="payment-form"
        >
          <fieldset className="form-group" disabled={busy}>
            <legend>Payment</legend>
            <div className="row">
              {/* Currency first: the amount's limits and decimals depend on it. */}
              <Field label="Currency" error={errorFor('currency')}>
                <select
                  name="currency"
                  value={currency}
                  onChange={(e) => editDetails({ currency: e.target.value }, 'currency')}
                >
                  {options.map((o) => (
                    <option key={o.currency} value={o.currency}>
                      {o.currency}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Amount" error={errorFor('amount')}>
                <input
                  name="amount"
                  inputMode="decimal"
                  autoComplete="off"
                  value={details.amount}
                  onChange={(e) => editDetails({ amount: e.target.value }, 'amount')}
                />
              </Field>
            </div>
            {option && <LimitsLine o={option} />}
            <Field
              label="Description"
              error={errorFor('description')}
              hint={
                <span
                  className={descLen > 30 || (descLen > 0 && descLen < 10) ? 'counter over' : 'counter'}
                  data-testid="description-counter"
                >
                  {descLen} of 10–30 characters
                </span>
              }
            >
              <input
                name="description"
                autoComplete="off"
                value={details.description}
                onChange={(e) => editDetails({ description: e.target.value }, 'description')}
              />
            </Field>
            <div className="row">
              <Field label="Customer name" error={errorFor('customerName')}>
                <input
                  name="customerName"
                  autoComplete="off"
                  value={details.customerName}
                  onChange={(e) => editDetails({ customerName: e.target.value }, 'customerName')}
                />
              </Field>
              <Field label="Customer e-mail" error={errorFor('customerEmail')}>
                <input
                  name="customerEmail"
                  type="email"
                  autoComplete="off"
                  value={details.customerEmail}
                  onChange={(e) => editDetails({ customerEmail: e.target.value }, 'customerEmail')}
                />
              </Field>
            </div>
            <div className="checks">
              <label>
                <input
                  type="checkbox"
                  name="chargeCustomer"
                  checked={details.chargeCustomer}
                  onChange={(e) => editDetails({ chargeCustomer: e.target.checked }, 'chargeCustomer')}
                />{' '}
                Customer pays the card charge
              </label>
              <label>
                <input
                  type="checkbox"
                  name="allowFinalStatusChange"
                  checked={details.allowFinalStatusChange}
                  onChange={(e) => editDetails({ allowFinalStatusChange: e.target.checked }, 'allowFinalStatusChange')}
                />{' '}
                Allow the final status to change later
              </label>
            </div>
          </fieldset>
          <CardSection card={card} onChange={editCard} errorFor={errorFor} disabled={busy} />
          <div className="row">
            <button type="submit" className="primary" disabled={busy}>
              {option && /^\d/.test(details.amount.trim()) && !localErrors.amount
                ? `Charge ${currency} ${groupDigits(details.amount.trim())}`
                : 'Charge card'}
            </button>
            {submitted && Object.keys(localErrors).length > 0 && (
              <span className="field-error" role="alert">
                {Object.keys(localErrors).length === 1
                  ? 'One field needs attention.'
                  : `${Object.keys(localErrors).length} fields need attention.`}
              </span>
            )}
          </div>
        </form>
      )}
      <ConfirmDialog
        open={phase.kind === 'confirm'}
        title="Charge this card again?"
        confirmLabel="Charge again"
        cancelLabel="Do not charge"
        onConfirm={() => void charge.confirmRepeat(true)}
        onCancel={() => void charge.confirmRepeat(false)}
      >
        <p>{phase.kind === 'confirm' ? phase.message : ''}</p>
      </ConfirmDialog>
    </Screen>
  );
}
