// The Collections list's filters: status, currency, dates (with the "to before from" problem), free
// text, flagged only, and Clear filters once any is set.
import { FilterForm } from '../../ui/FilterForm.js';
import { STATUS_CODES, statusLabel } from '../../ui/status.js';
import type { useCollectionList } from './useCollectionList.js';
import { DateField } from '../../ui/DateField.js';
import { useWords } from '../../words/index.js';

export function CollectionFilters({ list }: { list: ReturnType<typeof useCollectionList> }) {
  const { filters, setFilters, text, setText, dateError, currencies } = list;
  const { t } = useWords();
  return (
    <FilterForm label={t('collections.filters')} className="filters panel">
      <label>
        {t('collections.f.status')}
        <select
          value={filters.status}
          onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as typeof filters.status }))}
        >
          <option value="">{t('collections.f.any')}</option>
          {STATUS_CODES.map((s) => (
            <option key={s} value={s}>
              {statusLabel(t, s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('collections.f.currency')}
        <select value={filters.currency} onChange={(e) => setFilters((f) => ({ ...f, currency: e.target.value }))}>
          <option value="">{t('collections.f.any')}</option>
          {currencies.map((c) => (
            <option key={c} value={c} translate="no">
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('collections.f.from')}
        <DateField value={filters.from} onChange={(from) => setFilters((f) => ({ ...f, from }))} />
      </label>
      <label>
        {t('collections.f.to')}
        <DateField
          value={filters.to}
          aria-invalid={dateError ? true : undefined}
          aria-describedby={dateError ? 'date-error' : undefined}
          onChange={(to) => setFilters((f) => ({ ...f, to }))}
        />
      </label>
      <label>
        {t('collections.f.search')}
        <input
          type="search"
          value={text}
          placeholder={t('collections.f.searchPlaceholder')}
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
          {t('collections.f.flagged')}
        </span>
      </label>
      {list.filtered && (
        <button type="button" onClick={list.clear}>
          {t('collections.f.clear')}
        </button>
      )}
      {dateError && (
        <span className="field-error" id="date-error" role="alert">
          {t(dateError)}
        </span>
      )}
    </FilterForm>
  );
}
