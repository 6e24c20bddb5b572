// The exceptions queue's filters: kind (with how many of each), currency, dates, text and whether resolved
// ones show. Kept in the session: a full reconciliation re-reads the queue, and a reload of the window,
// without losing what the person was looking at.
import { useMemo } from 'react';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery, useSessionState } from '../../hooks.js';
import { FilterForm } from '../../ui/FilterForm.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import { EXCEPTION_KINDS, kindLabel } from './labels.js';
import { DateField } from '../../ui/DateField.js';
import { useWords } from '../../words/index.js';

interface QueueFilterValues {
  kind: string;
  currency: string;
  from: string;
  to: string;
  text: string;
  includeResolved: boolean;
}
const NO_FILTERS: QueueFilterValues = { kind: '', currency: '', from: '', to: '', text: '', includeResolved: false };

export interface QueueFilters {
  values: QueueFilterValues;
  set: (patch: Partial<QueueFilterValues>) => void;
  request: RequestOf<'reconcile.exceptions'>;
  /** Any filter is set (the empty queue then says so). */
  any: boolean;
  /** "To" is before "From". */
  badRange: boolean;
}

export function useQueueFilters(): QueueFilters {
  const [values, setValues] = useSessionState<QueueFilterValues>('reconciliation.exceptions.filters', NO_FILTERS);
  const { kind, currency, from, to, text, includeResolved } = values;
  const request = useMemo(() => {
    const r: RequestOf<'reconcile.exceptions'> = { sort: 'newest' };
    if (kind) r.kind = kind as NonNullable<RequestOf<'reconcile.exceptions'>['kind']>;
    if (currency) r.currency = currency;
    const f = dayStart(from);
    const t = dayEnd(to);
    if (f !== undefined) r.from = f;
    if (t !== undefined) r.to = t;
    if (text.trim()) r.text = text.trim();
    if (includeResolved) r.includeResolved = true;
    return r;
  }, [kind, currency, from, to, text, includeResolved]);
  return {
    values,
    set: (patch) => setValues((f) => ({ ...f, ...patch })),
    request,
    any: !!(includeResolved || kind || currency || from || to || text),
    badRange: !!(from && to && (dayStart(from) ?? 0) >= (dayEnd(to) ?? 0)),
  };
}

/** `counts`: open exceptions by kind, beside each kind's name. */
export function QueueFilterForm({ filters, counts }: { filters: QueueFilters; counts: Record<string, number> }) {
  const { values, set, badRange } = filters;
  const currencies = useDeskQuery(
    'reconcile.currencies',
    {},
    { refreshOn: ['collections.updated', 'balances.updated'] },
  );
  const invalid = badRange ? true : undefined;
  const { t } = useWords();
  return (
    <>
      <FilterForm label={t('recon.f.label')}>
        <label>
          {t('recon.f.kind')}
          <select aria-label={t('recon.f.kind')} value={values.kind} onChange={(e) => set({ kind: e.target.value })}>
            <option value="">{t('recon.f.allKinds')}</option>
            {EXCEPTION_KINDS.map((k) => (
              <option key={k} value={k}>
                {t('recon.f.kindCount', { kind: kindLabel(t, k), n: counts[k] ?? 0 })}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('recon.f.currency')}
          <select
            aria-label={t('recon.f.currency')}
            value={values.currency}
            onChange={(e) => set({ currency: e.target.value })}
          >
            <option value="">{t('recon.f.all')}</option>
            {[...new Set([...(currencies.data ?? []), ...(values.currency ? [values.currency] : [])])]
              .sort()
              .map((c) => (
                <option key={c} translate="no">
                  {c}
                </option>
              ))}
          </select>
        </label>
        <label>
          {t('recon.f.from')}
          <DateField
            aria-label={t('recon.f.from')}
            value={values.from}
            onChange={(from) => set({ from })}
            aria-invalid={invalid}
          />
        </label>
        <label>
          {t('recon.f.to')}
          <DateField
            aria-label={t('recon.f.to')}
            value={values.to}
            onChange={(to) => set({ to })}
            aria-invalid={invalid}
          />
        </label>
        <label>
          {t('recon.f.search')}
          <input
            aria-label={t('recon.f.search')}
            type="search"
            value={values.text}
            onChange={(e) => set({ text: e.target.value })}
            placeholder={t('recon.f.searchPlaceholder')}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={values.includeResolved}
            onChange={(e) => set({ includeResolved: e.target.checked })}
          />
          {t('recon.f.showResolved')}
        </label>
      </FilterForm>
      {badRange && (
        <p className="field-error" role="alert">
          {t('recon.f.badRange')}
        </p>
      )}
    </>
  );
}
