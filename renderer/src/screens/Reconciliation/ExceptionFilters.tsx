// The exceptions queue's filters: kind (with how many of each), currency, dates, text and whether resolved
// ones show. Kept in the session: a full reconciliation re-reads the queue, and a reload of the window,
// without losing what the person was looking at.
import { useMemo } from 'react';
import type { RequestOf } from '../../../../main/ipc/contract/index.js';
import { useDeskQuery, useSessionState } from '../../hooks.js';
import { FilterForm } from '../../ui/FilterForm.js';
import { dayEnd, dayStart } from '../../ui/dates.js';
import { EXCEPTION_KINDS, kindLabel } from './labels.js';

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
  return (
    <>
      <FilterForm label="Exception filters">
        <label>
          Kind
          <select aria-label="Kind" value={values.kind} onChange={(e) => set({ kind: e.target.value })}>
            <option value="">All kinds</option>
            {EXCEPTION_KINDS.map((k) => (
              <option key={k} value={k}>
                {kindLabel(k)} ({counts[k] ?? 0})
              </option>
            ))}
          </select>
        </label>
        <label>
          Currency
          <select aria-label="Currency" value={values.currency} onChange={(e) => set({ currency: e.target.value })}>
            <option value="">All</option>
            {[...new Set([...(currencies.data ?? []), ...(values.currency ? [values.currency] : [])])]
              .sort()
              .map((c) => (
                <option key={c}>{c}</option>
              ))}
          </select>
        </label>
        <label>
          From
          <input
            aria-label="From"
            type="date"
            value={values.from}
            onChange={(e) => set({ from: e.target.value })}
            aria-invalid={invalid}
          />
        </label>
        <label>
          To
          <input
            aria-label="To"
            type="date"
            value={values.to}
            onChange={(e) => set({ to: e.target.value })}
            aria-invalid={invalid}
          />
        </label>
        <label>
          Search
          <input
            aria-label="Search"
            type="search"
            value={values.text}
            onChange={(e) => set({ text: e.target.value })}
            placeholder="Reference or customer"
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={values.includeResolved}
            onChange={(e) => set({ includeResolved: e.target.checked })}
          />
          Show resolved
        </label>
      </FilterForm>
      {badRange && (
        <p className="field-error" role="alert">
          To must be on or after From.
        </p>
      )}
    </>
  );
}
