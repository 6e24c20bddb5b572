// Balance movement per currency and polling interval against the completed collections' credits; the
// unexplained difference highlighted.
import { useState } from 'react';
import type { MovementInterval, MovementResult, MovementTotals } from '../../../../main/reconcile/types.shared.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, Money } from '../../ui/index.js';
import { FilterForm } from '../../ui/FilterForm.js';
import { useWords } from '../../words/index.js';
import { ReconTable, queryRead } from './ReconTable.js';

const CURRENCIES = ['UGX', 'KES', 'TZS', 'USD'];

export function Movement() {
  const [currency, setCurrency] = useState('');
  const [onlyUnexplained, setOnlyUnexplained] = useState(false);
  const request: RequestOf<'reconcile.balanceMovement'> = {
    limit: 2000,
    ...(currency ? { currency } : {}),
    ...(onlyUnexplained ? { onlyUnexplained } : {}),
  };
  const q = useDeskQuery('reconcile.balanceMovement', request, {
    refreshOn: ['balances.updated', 'callbacks.ingested'],
  });
  const { t } = useWords();
  return (
    <ReconTable
      titleId="movement-title"
      title={t('recon.mv.title')}
      intro={t('recon.mv.intro')}
      filters={
        <FilterForm label={t('recon.mv.filters')}>
          <label>
            {t('recon.mv.currency')}
            <select aria-label={t('recon.mv.currency')} value={currency} onChange={(e) => setCurrency(e.target.value)}>
              <option value="">{t('recon.f.all')}</option>
              {CURRENCIES.map((c) => (
                <option key={c} translate="no">
                  {c}
                </option>
              ))}
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={onlyUnexplained} onChange={(e) => setOnlyUnexplained(e.target.checked)} />
            {t('recon.mv.onlyUnexplained')}
          </label>
        </FilterForm>
      }
      read={queryRead(q)}
      errorTitle={t('recon.mv.failed')}
      loadingText={t('recon.mv.loading')}
    >
      {q.data && <MovementShown d={q.data} />}
    </ReconTable>
  );
}

/** The totals per currency, each interval, and what was left out. */
function MovementShown({ d }: { d: MovementResult }) {
  const { t } = useWords();
  return (
    <>
      {d.totals.length === 0 && d.intervals.length === 0 && (
        <EmptyState title={t('recon.mv.noneTitle')}>{t('recon.mv.none')}</EmptyState>
      )}
      {d.totals.length > 0 && <Totals rows={d.totals} />}
      {d.intervals.length > 0 && <Intervals rows={d.intervals} />}
      <p className="as-of">
        {t('recon.mv.polls', { polls: d.polls, quiet: d.quietIntervals })}
        {d.unreadableCredits > 0 && (
          <span className="warn-text"> {t('recon.mv.unreadable', { n: d.unreadableCredits })}</span>
        )}
        {d.truncated && <span className="warn-text"> {t('recon.mv.truncated')}</span>}
      </p>
    </>
  );
}

function Totals({ rows }: { rows: MovementTotals[] }) {
  const { t } = useWords();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t('recon.mv.totalsScroll')}>
      <table className="table" aria-label={t('recon.mv.totals')}>
        <thead>
          <tr>
            <th scope="col">{t('recon.mv.currency')}</th>
            <th scope="col" className="num">
              {t('recon.mv.change')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.creditedBy')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.unexplained')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.intervals')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.currency} className={r.unexplainedMinor !== 0 ? 'unexplained' : undefined}>
              <th scope="row" translate="no">
                {r.currency}
              </th>
              <td className="num">
                <Money minor={r.changeMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={r.creditedMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={r.unexplainedMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                {t('recon.mv.intervalsCount', { n: r.intervals, unexplained: r.unexplainedIntervals })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Intervals({ rows }: { rows: MovementInterval[] }) {
  const { t, f } = useWords();
  return (
    <div
      className="table-scroll"
      style={{ maxHeight: 420 }}
      tabIndex={0}
      role="region"
      aria-label={t('recon.mv.perScroll')}
    >
      <table className="table" aria-label={t('recon.mv.per')}>
        <thead>
          <tr>
            <th scope="col">{t('recon.mv.currency')}</th>
            <th scope="col">{t('recon.mv.from')}</th>
            <th scope="col">{t('recon.mv.to')}</th>
            <th scope="col" className="num">
              {t('recon.mv.opening')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.closing')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.change')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.credited')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.unexplained')}
            </th>
            <th scope="col" className="num">
              {t('recon.mv.collections')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={`${r.currency}-${r.fromPollId}-${r.toPollId}`}
              className={r.unexplainedMinor !== 0 ? 'unexplained' : undefined}
            >
              <td translate="no">{r.currency}</td>
              <td>{f.dateTime(r.fromAt)}</td>
              <td>{f.dateTime(r.toAt)}</td>
              <td className="num">
                <Money minor={r.openingActualMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={r.closingActualMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={r.changeMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={r.creditedMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">
                {r.unexplainedMinor !== 0 && <span className="sr-only">{t('recon.mv.unexplainedSr')} </span>}
                <Money minor={r.unexplainedMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">{f.number(r.collections)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
