// The receipt of a payment with a final status, printable, and the words it uses (also the Collections
// detail's card line).
import type { CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { Money } from '../../ui/index.js';
import { brandName } from '../../ui/format.js';
import { statusLabel } from '../../ui/status.js';
import { useWords, type Say } from '../../words/index.js';

/** What the agent tells the caller for a final status ("Approved"); undefined while it is not final. */
export function finalHeadline(t: Say['t'], status: string): string | undefined {
  return status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELLED' ? t(`ui.status.${status}`) : undefined;
}

/** "Visa •••• 4242", "JCB •••• 0000": the card as a receipt or a detail names it (brands: ui/format.ts). */
export function cardLine(t: Say['t'], brand: string | null, last4: string | null): string {
  const name = brandName(brand);
  const digits = last4 ?? '????';
  return name ? t('payment.cardOf', { brand: name, last4: digits }) : t('payment.cardUnknownBrand', { last4: digits });
}

export function Receipt({ c }: { c: CollectionRow }) {
  const { t, f } = useWords();
  const when = new Date(c.statusChangedAt);
  return (
    <section className="receipt panel" aria-label={t('payment.receipt')}>
      <h2>{t('payment.receiptTitle')}</h2>
      <p className={`receipt-status status-${c.status.toLowerCase()}`}>
        {finalHeadline(t, c.status) ?? statusLabel(t, c.status)}
      </p>
      <dl className="kv">
        <dt>{t('payment.r.amount')}</dt>
        <dd>
          <Money minor={c.amountMinor} currency={c.currency} />
        </dd>
        <dt>{t('payment.r.description')}</dt>
        <dd translate="no">{c.description}</dd>
        <dt>{t('payment.r.reference')}</dt>
        <dd className="mono" translate="no">
          {c.merchantReference}
        </dd>
        {c.internalReference && (
          <>
            <dt>{t('payment.r.serviceReference')}</dt>
            <dd className="mono" translate="no">
              {c.internalReference}
            </dd>
          </>
        )}
        <dt>{t('payment.r.card')}</dt>
        <dd>{cardLine(t, c.cardBrand, c.cardLast4)}</dd>
        {c.customerName && (
          <>
            <dt>{t('payment.r.customer')}</dt>
            <dd translate="no">{c.customerName}</dd>
          </>
        )}
        <dt>{t('payment.r.date')}</dt>
        <dd>
          <time dateTime={when.toISOString()}>{f.dateTime(when)}</time>
        </dd>
        <dt>{t('payment.r.takenBy')}</dt>
        <dd translate="no">{c.operator}</dd>
      </dl>
    </section>
  );
}
