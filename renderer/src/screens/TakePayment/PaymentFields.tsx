// The payment part of the Take payment form: currency (first: the amount's limits and decimals depend on
// it), amount with the option's limits, description with its length, the customer, and the two choices.
import type { CardOptionView } from '../../../../main/ipc/contract/collections.js';
import { displayMinor } from '../../../../main/money/amount.shared.js';
import { Field } from '../../ui/index.js';
import type { Details } from './usePaymentForm.js';

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

/** "12 of 10–30 characters", marked when outside that. */
function DescriptionCounter({ length }: { length: number }) {
  return (
    <span
      className={length > 30 || (length > 0 && length < 10) ? 'counter over' : 'counter'}
      data-testid="description-counter"
    >
      {length} of 10–30 characters
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
  return (
    <fieldset className="form-group" disabled={disabled}>
      <legend>Payment</legend>
      <div className="row">
        <Field label="Currency" error={errorFor('currency')}>
          <select name="currency" value={currency} onChange={(e) => onEdit({ currency: e.target.value }, 'currency')}>
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
            onChange={(e) => onEdit({ amount: e.target.value }, 'amount')}
          />
        </Field>
      </div>
      {option && <LimitsLine o={option} />}
      <Field
        label="Description"
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
        <Field label="Customer name" error={errorFor('customerName')}>
          <input
            name="customerName"
            autoComplete="off"
            value={details.customerName}
            onChange={(e) => onEdit({ customerName: e.target.value }, 'customerName')}
          />
        </Field>
        <Field label="Customer e-mail" error={errorFor('customerEmail')}>
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
          Customer pays the card charge
        </label>
        <label>
          <input
            type="checkbox"
            name="allowFinalStatusChange"
            checked={details.allowFinalStatusChange}
            onChange={(e) => onEdit({ allowFinalStatusChange: e.target.checked }, 'allowFinalStatusChange')}
          />{' '}
          Allow the final status to change later
        </label>
      </div>
    </fieldset>
  );
}
