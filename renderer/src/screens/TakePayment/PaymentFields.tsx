// The payment part of the Take payment form: currency (first: the amount's limits and decimals depend on
// it), amount with the option's limits, description with its length, the customer, and the two choices.
import type { CardOptionView } from '../../../../main/ipc/contract/collections.js';
import type { ReactNode } from 'react';
import { Field } from '../../ui/index.js';
import { useWords } from '../../words/index.js';
import type { Details } from './usePaymentForm.js';

const b = (chunks: ReactNode[]) => <strong>{chunks}</strong>;

function LimitsLine({ o }: { o: CardOptionView }) {
  const { rich } = useWords();
  const currency = o.currency;
  return (
    <p className="limits" data-testid="card-limits">
      <span>{rich('payment.limitMin', { minMinor: o.minMinor, currency, b })}</span>
      <span>{rich('payment.limitMax', { maxMinor: o.maxMinor, currency, b })}</span>
      <span>
        {rich('payment.limitToday', {
          remainingMinor: o.remainingTodayMinor,
          dailyMinor: o.maxDailyMinor,
          currency,
          b,
        })}
      </span>
    </p>
  );
}

/** "12 of 10–30 characters", marked when outside that. */
function DescriptionCounter({ length }: { length: number }) {
  const { t } = useWords();
  return (
    <span
      className={length > 30 || (length > 0 && length < 10) ? 'counter over' : 'counter'}
      data-testid="description-counter"
    >
      {t('payment.counter', { length })}
    </span>
  );
}

export function PaymentFields({
  details,
  currency,
  options,
  option,
  errorFor,
  onEdit,
  disabled,
}: {
  details: Details;
  /** The currency chosen (or the first offered). */
  currency: string;
  options: CardOptionView[];
  option: CardOptionView | undefined;
  errorFor: (name: string) => string | undefined;
  onEdit: (patch: Partial<Details>, field: keyof Details) => void;
  disabled: boolean;
}) {
  const { t } = useWords();
  return (
    <fieldset className="form-group" disabled={disabled}>
      <legend>{t('payment.legend')}</legend>
      <div className="row">
        <Field label={t('payment.currency')} error={errorFor('currency')}>
          <select name="currency" value={currency} onChange={(e) => onEdit({ currency: e.target.value }, 'currency')}>
            {options.map((o) => (
              <option key={o.currency} value={o.currency} translate="no">
                {o.currency}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('payment.amount')} error={errorFor('amount')}>
          <input
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            value={details.amount}
            onChange={(e) => onEdit({ amount: e.target.value }, 'amount')}
          />
        </Field>
      </div>
      {option && <LimitsLine o={option} />}
      <Field
        label={t('payment.description')}
        error={errorFor('description')}
        hint={<DescriptionCounter length={details.description.trim().length} />}
      >
        <input
          name="description"
          autoComplete="off"
          value={details.description}
          onChange={(e) => onEdit({ description: e.target.value }, 'description')}
        />
      </Field>
      <div className="row">
        <Field label={t('payment.customerName')} error={errorFor('customerName')}>
          <input
            name="customerName"
            autoComplete="off"
            value={details.customerName}
            onChange={(e) => onEdit({ customerName: e.target.value }, 'customerName')}
          />
        </Field>
        <Field label={t('payment.customerEmail')} error={errorFor('customerEmail')}>
          <input
            name="customerEmail"
            type="email"
            autoComplete="off"
            value={details.customerEmail}
            onChange={(e) => onEdit({ customerEmail: e.target.value }, 'customerEmail')}
          />
        </Field>
      </div>
      <div className="checks">
        <label>
          <input
            type="checkbox"
            name="chargeCustomer"
            checked={details.chargeCustomer}
            onChange={(e) => onEdit({ chargeCustomer: e.target.checked }, 'chargeCustomer')}
          />{' '}
          {t('payment.chargeCustomer')}
        </label>
        <label>
          <input
            type="checkbox"
            name="allowFinalStatusChange"
            checked={details.allowFinalStatusChange}
            onChange={(e) => onEdit({ allowFinalStatusChange: e.target.checked }, 'allowFinalStatusChange')}
          />{' '}
          {t('payment.allowChange')}
        </label>
      </div>
    </fieldset>
  );
}
