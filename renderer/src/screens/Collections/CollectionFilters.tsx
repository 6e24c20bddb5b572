// The Collections list's filters: status, currency, dates (with the "to before from" problem), free
// text, flagged only, and Clear filters once any is set.
import { FilterForm } from '../../ui/FilterForm.js';
import { STATUS_CODES, statusLabel } from '../../ui/status.js';
import type { useCollectionList } from './useCollectionList.js';

export function CollectionFilters({ list }: { list: ReturnType<typeof useCollectionList> }) {
  const { filters, setFilters, text, setText, dateError, currencies } = list;
  return (
    <FilterForm label="Filter collections" className="filters panel">
      <label>
        Status
        <select
          value={filters.status}
          onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as typeof filters.status }))}
        >
          <option value="">Any</option>
          {STATUS_CODES.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Currency
        <select value={filters.currency} onChange={(e) => setFilters((f) => ({ ...f, currency: e.target.value }))}>
          <option value="">Any</option>
          {currencies.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="date" value={filters.from} onChange={(e) => setFilters((f) => ({ ...f, from: e.target.value }))} />
      </label>
      <label>
        To
        <input
          type="date"
          value={filters.to}
          aria-invalid={dateError ? true : undefined}
          aria-describedby={dateError ? 'date-error' : undefined}
          onChange={(e) => setFilters((f) => ({ ...f, to: e.target.value }))}
        />
      </label>
      <label>
        Search
        <input
          type="search"
          value={text}
          placeholder="Reference or customer"
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      <label className="check">
        <span>
          <input
            type="checkbox"
            checked={filters.flagged}
            onChange={(e) => setFilters((f) => ({ ...f, flagged: e.target.checked }))}
          />{' '}
          Flagged only
        </span>
      </label>
      {list.filtered && (
        <button type="button" onClick={list.clear}>
          Clear filters
        </button>
      )}
      {dateError && (
        <span className="field-error" id="date-error" role="alert">
          {dateError}
        </span>
      )}
    </FilterForm>
  );
}
