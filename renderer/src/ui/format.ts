// The one formatting module of the window: every date, time, number, amount and file size a person
// reads is made here, by Intl in the person's locale (renderer/src/words/ picks it), one style per kind
// of date. No React, so plain tests import it. Amounts come from integer minor units and are never
// parsed back from what is shown.
import { currencyExponent, isKnownCurrency } from '../../../main/money/currency.shared.js';
import { formatMinor } from '../../../main/money/amount.shared.js';
import { BRAND_NAMES, type CardBrand } from '../../../main/collections/card-number.shared.js';

type Moment = number | string | Date | null | undefined;

/** The parts of a calendar day, in the order the person writes them. */
export type DayPart = 'day' | 'month' | 'year';

export interface Formats {
  /** The Intl locale everything is formatted in (e.g. "en-US", "fr-CM", "fr"). */
  locale: string;
  /** A moment with its date and time, seconds kept (events a second apart are evidence); a dash for none. */
  dateTime(at: Moment): string;
  /** A calendar day ("Dec 2, 2026", "2 déc. 2026"). */
  date(at: Moment): string;
  /** A time of day, hours and minutes ("12:24 AM", "00:24"). */
  time(at: Moment): string;
  /** A short day for a chart's axis ("Wed 2", "mer. 2"). */
  axisDay(at: number): string;
  /** A count or any plain number, grouped as the locale groups. */
  number(n: number): string;
  /** A share of 1 as a percentage ("42%", "42 %"). */
  percent(fraction: number): string;
  /**
   * Integer minor units with the currency's decimals; `code: false` leaves out the currency code (a
   * column or heading already says it). An amount that cannot be told says so with its minor units.
   */
  amount(minor: number, currency: string, opts?: { code?: boolean; sign?: boolean }): string;
  /** 1536 -> "1.5 kB" / "1,5 ko". */
  fileSize(bytes: number): string;
  /** The order of a typed day in this locale, and the separator between its parts. */
  dayOrder: readonly DayPart[];
  daySeparator: string;
  /** "YYYY-MM-DD" -> the day as the person types it ("12/02/2026", "02/12/2026"); '' for none. */
  dayText(value: string): string;
  /** What the person typed -> "YYYY-MM-DD", '' for an empty field, undefined when it is not a day. ISO is taken too. */
  dayValue(text: string): string | undefined;
}

const DASH = '—';

function toDate(at: Moment): Date | null {
  if (at === null || at === undefined || at === '') return null;
  const d = at instanceof Date ? at : new Date(at);
  return Number.isNaN(d.getTime()) ? null : d;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function isRealDay(y: number, m: number, d: number): boolean {
  const t = new Date(y, m - 1, d);
  return t.getFullYear() === y && t.getMonth() === m - 1 && t.getDate() === d;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * The formats of `locale`. `mark` wraps each formatted text (the pseudo-locale's marker, so a test can
 * tell what went through here from text that went through nothing).
 */
export function formatsFor(locale: string, mark: (s: string) => string = (s) => s): Formats {
  const dateTimeF = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
  const dateF = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
  const timeF = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' });
  const axisF = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric' });
  const numberF = new Intl.NumberFormat(locale);
  const percentF = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const amountFs = new Map<string, Intl.NumberFormat>();
  const amountF = (currency: string, code: boolean, sign: boolean) => {
    const key = `${currency}:${code}:${sign}`;
    let f = amountFs.get(key);
    if (!f) {
      const exp = currencyExponent(currency);
      f = new Intl.NumberFormat(locale, {
        ...(code ? { style: 'currency', currency, currencyDisplay: 'code' } : { style: 'decimal' }),
        minimumFractionDigits: exp,
        maximumFractionDigits: exp,
        ...(sign ? { signDisplay: 'exceptZero' } : {}),
      });
      amountFs.set(key, f);
    }
    return f;
  };
  const sizeF = {
    bytes: new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long' }),
    kB: new Intl.NumberFormat(locale, {
      style: 'unit',
      unit: 'kilobyte',
      maximumFractionDigits: 1,
      minimumFractionDigits: 1,
    }),
    MB: new Intl.NumberFormat(locale, {
      style: 'unit',
      unit: 'megabyte',
      maximumFractionDigits: 1,
      minimumFractionDigits: 1,
    }),
  };
  // The order the locale writes a numeric day in, read from Intl itself (a sample day's parts).
  const parts = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric' }).formatToParts(
    new Date(2026, 11, 31),
  );
  const dayOrder = parts
    .filter((p) => p.type === 'day' || p.type === 'month' || p.type === 'year')
    .map((p) => p.type as DayPart);
  const daySeparator = parts.find((p) => p.type === 'literal')?.value.trim() || '/';
  const when = (f: Intl.DateTimeFormat) => (at: Moment) => {
    const d = toDate(at);
    return d ? mark(f.format(d)) : at === null || at === undefined || at === '' ? DASH : String(at);
  };
  return {
    locale,
    dateTime: when(dateTimeF),
    date: when(dateF),
    time: when(timeF),
    axisDay: (at) => mark(axisF.format(new Date(at))),
    number: (n) => mark(numberF.format(n)),
    percent: (x) => mark(percentF.format(x)),
    amount(minor, currency, opts = {}) {
      if (!isKnownCurrency(currency) || !Number.isSafeInteger(minor)) return `${minor} (minor units) ${currency}`;
      // Intl takes the exact decimal text (ES2023), never a float made of it.
      return mark(
        amountF(currency, opts.code ?? true, opts.sign ?? false).format(formatMinor(minor, currency) as `${number}`),
      );
    },
    fileSize(bytes) {
      if (bytes < 1024) return mark(sizeF.bytes.format(bytes));
      if (bytes < 1024 * 1024) return mark(sizeF.kB.format(Math.round((bytes * 10) / 1024) / 10));
      return mark(sizeF.MB.format(Math.round((bytes * 10) / (1024 * 1024)) / 10));
    },
    dayOrder,
    daySeparator,
    dayText(value) {
      const m = ISO_DAY.exec(value);
      if (!m) return value;
      const byPart = { year: m[1]!, month: m[2]!, day: m[3]! };
      return dayOrder.map((p) => byPart[p]).join(daySeparator);
    },
    dayValue(text) {
      const t = text.trim();
      if (!t) return '';
      const iso = ISO_DAY.exec(t);
      if (iso) return isRealDay(+iso[1]!, +iso[2]!, +iso[3]!) ? t : undefined;
      const nums = t.split(/[^\d]+/).filter(Boolean);
      if (nums.length !== 3) return undefined;
      const got: Record<DayPart, number> = { day: 0, month: 0, year: 0 };
      dayOrder.forEach((p, i) => (got[p] = Number(nums[i])));
      if (got.year < 100) got.year += 2000;
      if (!isRealDay(got.year, got.month, got.day)) return undefined;
      return `${pad(got.year, 4)}-${pad(got.month)}-${pad(got.day)}`;
    },
  };
}

/** A card brand's name, the one place that names them ("JCB", "American Express"); null for none. */
export function brandName(brand: string | null | undefined): string | null {
  if (!brand) return null;
  const key = brand.toLowerCase() as CardBrand;
  return Object.hasOwn(BRAND_NAMES, key) && key !== 'unknown' ? BRAND_NAMES[key] : null;
}
