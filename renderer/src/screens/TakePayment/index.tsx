// Take payment: a support agent types the card a customer reads out on the phone, charges it, and tells
// the customer the result. The card goes to main once (payments.charge), and nothing of the card is ever
// put in storage; when the form clears it is usePaymentForm's to say.
import { useRef } from 'react';
import type { CardOptionView } from '../../../../main/ipc/contract/collections.js';
import { TEAM_ACTIONS } from '../../../../main/team/roles.shared.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { EmptyState, ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { groupDigits } from '../../ui/format.js';
import { useMay } from '../../role.js';
import { CardSection } from './CardSection.js';
import { PaymentFields } from './PaymentFields.js';
import { PaymentResult } from './PaymentResult.js';
import { isBusy, type ChargePhase } from './charge-machine.js';
import { usePaymentForm } from './usePaymentForm.js';
import './payments.css';

const WAITING_TEXT =
  'The payment page is open in its own window: go through it with the customer. Closing it leaves the payment pending.';

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
  const formRef = useRef<HTMLFormElement>(null);
  const form = usePaymentForm(formRef);
  const { phase, charge, options, option } = form;
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
            onNew={form.newPayment}
          />
        )}
      </Screen>
    );
  }

  const busy = isBusy(phase);
  return (
    <Screen title="Take payment">
      <ErrorBanner error={form.opts.error} title="Could not read the card options" />
      {form.opts.loading && <Loading what="card options" />}
      {form.opts.data && options.length === 0 && (
        <EmptyState title="No active card option">
          The service offers no active card collection option; check Payment options.
        </EmptyState>
      )}
      {phase.kind === 'sending' && <SendingBanner reference={phase.reference} />}
      <ErrorBanner error={form.banner} />
      {options.length > 0 && (
        <form
          ref={formRef}
          onSubmit={(e) => void form.submit(e)}
          aria-label="Take payment"
          noValidate
          className="payment-form"
        >
          <PaymentFields
            details={form.details}
            currency={form.currency}
            options={options}
            option={option}
            errorFor={form.errorFor}
            onEdit={form.editDetails}
            disabled={busy}
          />
          <CardSection card={form.card} onChange={form.editCard} errorFor={form.errorFor} disabled={busy} />
          <ChargeRow
            option={option}
            amount={form.details.amount.trim()}
            currency={form.currency}
            problems={Object.keys(form.localErrors)}
            submitted={form.submitted}
            disabled={busy}
          />
        </form>
      )}
      <RepeatDialog phase={phase} onAnswer={(yes) => void charge.confirmRepeat(yes)} />
    </Screen>
  );
}

function SendingBanner({ reference }: { reference: string | null }) {
  return (
    <div className="banner info" role="status">
      {reference ? (
        <span>
          Sending payment <span className="mono">{reference}</span> to the service…
        </span>
      ) : (
        'Sending the payment to the service…'
      )}
    </div>
  );
}

/** The Charge button (naming the amount once it reads as one) and, after a try, how many fields need attention. */
function ChargeRow({
  option,
  amount,
  currency,
  problems,
  submitted,
  disabled,
}: {
  option: CardOptionView | undefined;
  amount: string;
  currency: string;
  /** The fields with a problem. */
  problems: string[];
  submitted: boolean;
  disabled: boolean;
}) {
  return (
    <div className="row">
      <button type="submit" className="primary" disabled={disabled}>
        {option && /^\d/.test(amount) && !problems.includes('amount')
          ? `Charge ${currency} ${groupDigits(amount)}`
          : 'Charge card'}
      </button>
      {submitted && problems.length > 0 && (
        <span className="field-error" role="alert">
          {problems.length === 1 ? 'One field needs attention.' : `${problems.length} fields need attention.`}
        </span>
      )}
    </div>
  );
}

/** The same card and amount again within minutes: main asks first. */
function RepeatDialog({ phase, onAnswer }: { phase: ChargePhase; onAnswer: (yes: boolean) => void }) {
  return (
    <ConfirmDialog
      open={phase.kind === 'confirm'}
      title="Charge this card again?"
      confirmLabel="Charge again"
      cancelLabel="Do not charge"
      onConfirm={() => onAnswer(true)}
      onCancel={() => onAnswer(false)}
    >
      <p>{phase.kind === 'confirm' ? phase.message : ''}</p>
    </ConfirmDialog>
  );
}
