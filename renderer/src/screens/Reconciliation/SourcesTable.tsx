// One collection's sources side by side (status, amount, currency, time, signature, events), with what
// disagrees marked: a contradiction as "disagree", a final status the service changed itself as "changed".
import type { ReactNode } from 'react';
import type { ExceptionDetail, SourceColumn } from '../../../../main/reconcile/types.shared.js';
import { Money } from '../../ui/index.js';
import { isFinalStatus as finalOf, statusLabel } from '../../ui/status.js';
import { signatureLabel, sourceLabel } from './labels.js';
import { useWords } from '../../words/index.js';

export function SourcesTable({ detail }: { detail: ExceptionDetail }) {
  const cols = detail.sources.filter((s) => s.source !== 'security' || s.events > 0);
  const intent = cols.find((s) => s.source === 'intent');
  const finals = new Set(cols.filter((s) => s.source !== 'intent' && finalOf(s.status)).map((s) => s.status));
  // A final status the service changed itself (allow_final_status_change) differs by design: shown as
  // "changed after final" in the warning style, not as a contradiction.
  const kinds = detail.reconciliation?.kinds ?? [];
  const changedAfterFinal = kinds.includes('final_status_changed') && !kinds.includes('redirect_callback_disagree');
  const statusOff = (s: SourceColumn) => finals.size > 1 && finalOf(s.status);
  const amountOff = (s: SourceColumn) =>
    s.source !== 'intent' && s.amountMinor !== null && intent && s.amountMinor !== intent.amountMinor;
  const currencyOff = (s: SourceColumn) =>
    s.source !== 'intent' && s.currency !== null && intent && s.currency !== intent.currency;
  const sigOff = (s: SourceColumn) => s.signature === 'invalid';
  const { t, f } = useWords();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t('recon.sources.scroll')}>
      <table className="table sources-table" aria-label={t('recon.sources.label')}>
        <thead>
          <tr>
            <th scope="col">
              <span className="sr-only">{t('recon.sources.field')}</span>
            </th>
            {cols.map((s) => (
              <th scope="col" key={s.source}>
                {sourceLabel(t, s.source)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">{t('recon.sources.status')}</th>
            {cols.map((s) => (
              <td key={s.source} className={statusOff(s) ? (changedAfterFinal ? 'changed' : 'disagree') : undefined}>
                {statusLabel(t, s.status)}
                {statusOff(s) && changedAfterFinal && <span className="cell-note"> {t('recon.sources.changed')}</span>}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">{t('recon.sources.amount')}</th>
            {cols.map((s) => (
              <Cell key={s.source} off={amountOff(s)}>
                {s.amountMinor === null ? (
                  '—'
                ) : (
                  <Money minor={s.amountMinor} currency={s.currency ?? intent?.currency ?? ''} code={false} />
                )}
              </Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">{t('recon.sources.currency')}</th>
            {cols.map((s) => (
              <Cell key={s.source} off={currencyOff(s)}>
                <span translate="no">{s.currency ?? '—'}</span>
              </Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">{t('recon.sources.time')}</th>
            {cols.map((s) => (
              <Cell key={s.source}>{f.dateTime(s.receivedAt)}</Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">{t('recon.sources.signature')}</th>
            {cols.map((s) => (
              <Cell key={s.source} off={sigOff(s)}>
                {s.signature ? signatureLabel(t, s.signature) : '—'}
              </Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">{t('recon.sources.events')}</th>
            {cols.map((s) => (
              <Cell key={s.source}>{f.number(s.events)}</Cell>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function Cell({ off, children }: { off?: boolean | undefined; children: ReactNode }) {
  return <td className={off ? 'disagree' : undefined}>{children}</td>;
}
