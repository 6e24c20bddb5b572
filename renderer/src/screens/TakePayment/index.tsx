// Take payment: a support agent types the card a customer reads out on the phone, charges it, and tells
// the customer the result. The card goes to main once (payments.charge), and nothing of the card is ever
// put in storage; when the form clears it is usePaymentForm's to say.
import { useRef } from 'react';
import type { CardOptionView } from '../../../../main/ipc/contract/collections.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { EmptyState, ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { useWords } from '../../words/index.js';
import { parseAmount } from '../../../../main/collections/card-input.shared.js';
import { useMay } from '../../role.js';
import { CardSection } from './CardSection.js';
import { PaymentFields } from './PaymentFields.js';
import { PaymentResult } from './PaymentResult.js';
import { isBusy, type ChargePhase } from './charge-machine.js';
import { usePaymentForm } from './usePaymentForm.js';
import './payments.css';

export function TakePaymentScreen() {
  const { t } = useWords();
  // On a team desk taking payments is support's (and admins'): other roles are told so, not shown a form
  // that the team database would refuse.
  if (!useMay('takePayments')) {
    return (
      <Screen title={t('app.screen.takePayment')}>
        <EmptyState title={t('payment.notForRole')}>
          {t('payment.askAdmin', { who: t('team.who.takePayments') })}
        </EmptyState>
      </Screen>
    );
  }
  return <TakePaymentForm />;
}

function TakePaymentForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const form = usePaymentForm(formRef);
  const { t } = useWords();
  const { phase, charge, options, option } = form;
  if (phase.kind === 'tracking' || phase.kind === 'waiting') {
    return (
      <Screen title={t('app.screen.takePayment')}>
        {phase.kind === 'waiting' ? (
          // The payment window is open: payments.charge answers when it redirects or is closed. A callback
          // that arrives first already shows here.
          <PaymentResult
            key={phase.reference}
            reference={phase.reference}
            outcome={{ kind: 'pending', message: '', words: { id: 'payment.waiting' }, paymentUrl: '' }}
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
    <Screen title={t('app.screen.takePayment')}>
      <ErrorBanner error={form.opts.error} title={t('payment.optionsFailed')} />
      {form.opts.loading && <Loading text={t('payment.optionsLoading')} />}
      {form.opts.data && options.length === 0 && (
        <EmptyState title={t('payment.noOptionTitle')}>{t('payment.noOption')}</EmptyState>
      )}
      {phase.kind === 'sending' && <SendingBanner reference={phase.reference} />}
      <ErrorBanner error={form.banner} />
      {options.length > 0 && (
        <form
          ref={formRef}
          onSubmit={(e) => void form.submit(e)}
          aria-label={t('payment.form')}
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
  const { t, rich } = useWords();
  return (
    <div className="banner info" role="status">
      {reference ? (
        <span>
          {rich('payment.sendingRef', {
            reference: (
              <span className="mono" translate="no">
                {reference}
              </span>
            ),
          })}
        </span>
      ) : (
        t('payment.sending')
      )}
    </div>
  );
}

/**
 * The amount as typed, in the person's format with its currency once it reads as an amount of it (its
 * minor units, never a float); as typed otherwise.
 */
function useTypedAmount() {
  const { f } = useWords();
  return (amount: string, currency: string, exponent: number): string => {
    const r = parseAmount(amount, exponent);
    return 'minor' in r ? f.amount(r.minor, currency) : `${amount} ${currency}`;
  };
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
  const { t } = useWords();
  const typedAmount = useTypedAmount();
  return (
    <div className="row">
      <button type="submit" className="primary" disabled={disabled}>
        {option && /^\d/.test(amount) && !problems.includes('amount')
          ? t('payment.chargeAmount', { amount: typedAmount(amount, currency, option.exponent) })
          : t('payment.chargeCard')}
      </button>
      {submitted && problems.length > 0 && (
        <span className="field-error" role="alert">
          {t('payment.needAttention', { n: problems.length })}
        </span>
      )}
    </div>
  );
}

/** The same card and amount again within minutes: main asks first. */
function RepeatDialog({ phase, onAnswer }: { phase: ChargePhase; onAnswer: (yes: boolean) => void }) {
  const { t, say } = useWords();
  return (
    <ConfirmDialog
      open={phase.kind === 'confirm'}
      title={t('payment.repeatTitle')}
      confirmLabel={t('payment.chargeAgain')}
      cancelLabel={t('payment.doNotCharge')}
      onConfirm={() => onAnswer(true)}
      onCancel={() => onAnswer(false)}
    >
      <p>{phase.kind === 'confirm' ? say(phase.words, phase.message) : ''}</p>
    </ConfirmDialog>
  );
}
