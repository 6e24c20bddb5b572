// The filter terms the lists and reports build from what a screen asks (a time range, a currency, a
// reference prefix), built in one place so the collections page, the exceptions queue, the audit list
// and the CSV export match the same rows for the same words. Terms use named parameters (@from, @to,
// @currency, @tlo, @thi), so a caller can add its own terms to the same object.

export type Params = Record<string, unknown>;

/** WHERE terms (joined by AND) and the named parameters they use. */
export interface Terms {
  where: string[];
  params: Params;
}

export function newTerms(): Terms {
  return { where: [], params: {} };
}

/**
 * `column >= @from` (inclusive) and `column < @to` (exclusive), each only when given. `column` is the
 * SQL the term tests: the collections page writes `+created_at` when the term must not choose the index.
 */
export function addRange(t: Terms, column: string, r: { from?: number | undefined; to?: number | undefined }): Terms {
  if (r.from !== undefined) {
    t.where.push(`${column} >= @from`);
    t.params.from = r.from;
  }
  if (r.to !== undefined) {
    t.where.push(`${column} < @to`);
    t.params.to = r.to;
  }
  return t;
}

/** `column = @currency` when a currency is given (codes are stored upper case). */
export function addCurrency(t: Terms, column: string, currency: string | undefined): Terms {
  if (currency) {
    t.where.push(`${column} = @currency`);
    t.params.currency = currency.toUpperCase();
  }
  return t;
}

/**
 * The reference search: a case-insensitive prefix as a range on a lower(...) index (migrations 002, 005),
 * `lower(col) >= @tlo AND lower(col) < @thi`. (A LIKE with escapes cannot ride those indexes: it scans.)
 *
 * Case: SQLite's lower() folds ASCII letters only, so the text is folded the same way (ASCII only):
 * what a person types in the case it is stored in always matches, and A-Z match a-z. (Folding every
 * letter in JS, as the page did, made "Émile" find nothing: lower('Émile') is 'Émile' in SQLite.) This
 * is what the exceptions queue's LIKE did, so both screens answer as it did.
 *
 * @thi is the prefix followed by the highest code point, so a prefix followed by any character
 * (emoji included: '\uffff' ranked below them in UTF-8) is inside the range.
 *
 * Blank text: no search (null).
 */
export function prefixBounds(text: string | undefined): { tlo: string; thi: string } | null {
  const t = text?.trim().replace(/[A-Z]+/g, (m) => m.toLowerCase());
  if (!t) return null;
  return { tlo: t, thi: t + '\u{10ffff}' };
}

/** The prefix term on one lower(...) expression, e.g. prefixTerm('lower(merchant_reference)'). */
export function prefixTerm(lowerColumn: string): string {
  return `${lowerColumn} >= @tlo AND ${lowerColumn} < @thi`;
}

/**
 * A prefix search over several columns: `(term1 OR term2 ...)` with @tlo/@thi set, when the text is not
 * blank. Each column is a lower(...) expression with its own index.
 */
export function addPrefix(t: Terms, lowerColumns: readonly string[], text: string | undefined): Terms {
  const b = prefixBounds(text);
  if (b) {
    t.where.push(`(${lowerColumns.map((c) => `(${prefixTerm(c)})`).join(' OR ')})`);
    Object.assign(t.params, b);
  }
  return t;
}

export function whereOf(parts: readonly string[]): string {
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/**
 * The predicate of reconciliation's partial index (migration 011, reconciliation_notable): a query that
 * repeats it verbatim reads the notable rows from that index instead of the whole table.
 */
export const NOT_MATCHED = "outcome <> 'matched'";
