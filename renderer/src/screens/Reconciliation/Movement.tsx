// Balance movement per currency and polling interval against the completed collections' credits; the
// unexplained difference highlighted.
import { useState } from 'react';
import type { MovementInterval, MovementResult, MovementTotals } from '../../../../main/reconcile/types.shared.js';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery } from '../../hooks.js';
import { EmptyState, Money } from '../../ui/index.js';
import { FilterForm } from '../../ui/FilterForm.js';
import { formatDateTime } from '../../ui/format.js';
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
  return (
    <ReconTable
      titleId="movement-title"
      title="Balance movement per polling interval"
      intro="For each currency, the change in the actual balance between two polls against what completed collections credited in between. A non-zero unexplained amount is highlighted."
      filters={
        <FilterForm label="Movement filters">
          <label>
            Currency
            <select aria-label="Currency" value={currency} onChange={(e) => setCurrency(e.target.value)}>
              <option value="">All</option>
              {CURRENCIES.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={onlyUnexplained} onChange={(e) => setOnlyUnexplained(e.target.checked)} />
            Only unexplained intervals
          </label>
        </FilterForm>
      }
      read={queryRead(q)}
      errorTitle="Could not compute the balance movement"
      loadingWhat="balance movement"
    >
      {q.data && <MovementShown d={q.data} />}
    </ReconTable>
  );
}

/** The totals per currency, each interval, and what was left out. */
function MovementShown({ d }: { d: MovementResult }) {
  return (
    <>
      {d.totals.length === 0 && d.intervals.length === 0 && (
        <EmptyState title="No balance movement yet">It appears after two or more balance polls.</EmptyState>
      )}
      {d.totals.length > 0 && <Totals rows={d.totals} />}
      {d.intervals.length > 0 && <Intervals rows={d.intervals} />}
      <p className="as-of">
        {d.polls.toLocaleString()} polls; {d.quietIntervals.toLocaleString()} quiet intervals (no change, no credit) not
        listed.
        {d.unreadableCredits > 0 && (
          <span className="warn-text">
            {' '}
            {d.unreadableCredits} completed callbacks had an unreadable total_credit (counted as 0).
          </span>
        )}
        {d.truncated && (
          <span className="warn-text"> Only the newest intervals are shown; choose a currency to see more.</span>
        )}
      </p>
    </>
  );
}

function Totals({ rows }: { rows: MovementTotals[] }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Movement totals per currency (scrollable)">
      <table className="table" aria-label="Movement totals per currency">
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col" className="num">
              Change
            </th>
            <th scope="col" className="num">
              Credited by collections
            </th>
            <th scope="col" className="num">
              Unexplained
            </th>
            <th scope="col" className="num">
              Intervals (unexplained)
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.currency} className={t.unexplainedMinor !== 0 ? 'unexplained' : undefined}>
              <th scope="row">{t.currency}</th>
              <td className="num">
                <Money minor={t.changeMinor} currency={t.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={t.creditedMinor} currency={t.currency} code={false} />
              </td>
              <td className="num">
                <Money minor={t.unexplainedMinor} currency={t.currency} code={false} />
              </td>
              <td className="num">
                {t.intervals} ({t.unexplainedIntervals})
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Intervals({ rows }: { rows: MovementInterval[] }) {
  return (
    <div
      className="table-scroll"
      style={{ maxHeight: 420 }}
      tabIndex={0}
      role="region"
      aria-label="Movement per interval (scrollable)"
    >
      <table className="table" aria-label="Movement per interval">
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col" className="num">
              Opening
            </th>
            <th scope="col" className="num">
              Closing
            </th>
            <th scope="col" className="num">
              Change
            </th>
            <th scope="col" className="num">
              Credited
            </th>
            <th scope="col" className="num">
              Unexplained
            </th>
            <th scope="col" className="num">
              Collections
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={`${r.currency}-${r.fromPollId}-${r.toPollId}`}
              className={r.unexplainedMinor !== 0 ? 'unexplained' : undefined}
            >
              <td>{r.currency}</td>
              <td>{formatDateTime(r.fromAt)}</td>
              <td>{formatDateTime(r.toAt)}</td>
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
                {r.unexplainedMinor !== 0 && <span className="sr-only">Unexplained: </span>}
                <Money minor={r.unexplainedMinor} currency={r.currency} code={false} />
              </td>
              <td className="num">{r.collections}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
