// The receipt of a payment with a final status, printable, and the words it uses (also the Collections
// detail's card line).
import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { Money } from '../../ui/index.js';
import { formatDateTime } from '../../ui/format.js';
import { statusLabel } from '../../ui/status.js';

const HEADLINE: Record<string, string> = {
  COMPLETED: 'Approved',
  FAILED: 'Declined',
  CANCELLED: 'Cancelled',
};

/** What the agent tells the caller for a final status ("Approved"); undefined while it is not final. */
export function finalHeadline(status: string): string | undefined {
  return HEADLINE[status];
}

export function brandName(b: string | null): string {
  if (!b) return 'Card';
  return b === 'mastercard' ? 'Mastercard' : b === 'amex' ? 'American Express' : b.charAt(0).toUpperCase() + b.slice(1);
}

export function Receipt({ c }: { c: CollectionRow }) {
  const when = new Date(c.statusChangedAt);
  return (
    <section className="receipt panel" aria-label="Receipt">
      <h2>Payment receipt</h2>
      <p className={`receipt-status status-${c.status.toLowerCase()}`}>
        {finalHeadline(c.status) ?? statusLabel(c.status)}
      </p>
      <dl className="kv">
        <dt>Amount</dt>
        <dd>
          <Money minor={c.amountMinor} currency={c.currency} />
        </dd>
        <dt>Description</dt>
        <dd>{c.description}</dd>
        <dt>Reference</dt>
        <dd className="mono">{c.merchantReference}</dd>
        {c.internalReference && (
          <>
            <dt>Service reference</dt>
            <dd className="mono">{c.internalReference}</dd>
          </>
        )}
        <dt>Card</dt>
        <dd>
          {brandName(c.cardBrand)} •••• {c.cardLast4 ?? '????'}
        </dd>
        {c.customerName && (
          <>
            <dt>Customer</dt>
            <dd>{c.customerName}</dd>
          </>
        )}
        <dt>Date</dt>
        <dd>
          <time dateTime={when.toISOString()}>{formatDateTime(when)}</time>
        </dd>
        <dt>Taken by</dt>
        <dd>{c.operator}</dd>
      </dl>
    </section>
  );
}
