// Date range arguments for reports: "2026-11-01" (a whole local day) or a full ISO 8601 time.
import { ReportError } from './errors.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses a report bound to ms since the epoch. A plain date is local midnight; as the end of a range
 * (`edge: 'end'`) it means the end of that day (the next midnight), so --from D --to D is one whole day.
 */
export function parseDateBound(text: string, field: string, edge: 'start' | 'end'): number {
  const s = text.trim();
  const m = DAY.exec(s);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(y, mo - 1, d + (edge === 'end' ? 1 : 0));
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || new Date(y, mo - 1, d).getDate() !== d) {
      throw new ReportError('validation', `${field}: "${s}" is not a real date (use YYYY-MM-DD)`, field);
    }
    return date.getTime();
  }
  if (ISO_TIME.test(s)) {
    const t = Date.parse(s);
    if (Number.isFinite(t)) return t;
  }
  throw new ReportError(
    'validation',
    `${field}: "${s.slice(0, 40)}" is not a date; use YYYY-MM-DD or an ISO 8601 time with offset`,
    field,
  );
}

export function checkRange(from: number | undefined, to: number | undefined): void {
  if (from !== undefined && to !== undefined && to <= from) {
    throw new ReportError('validation', 'to must be after from', 'to');
  }
}
