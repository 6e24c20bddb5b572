// Pure text formatting shared by the UI bits (no React, so plain tests can import it).

/** "1234567.50" -> "1,234,567.50" (string work only, no float maths). */
export function groupDigits(decimal: string): string {
  const neg = decimal.startsWith('-');
  const [int, frac] = (neg ? decimal.slice(1) : decimal).split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${grouped}${frac !== undefined ? '.' + frac : ''}`;
}

// One date-time format for the whole app, in the user's locale (e.g. "Nov 22, 2026, 11:48:03 AM" in
// en-US, "22 Nov 2026, 11:48:03" in en-GB). Seconds are kept: events a second apart are evidence.
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A moment (ms since the epoch, ISO text or Date) in the app's one date-time format; a dash for none. */
export function formatDateTime(at: number | string | Date | null | undefined): string {
  if (at === null || at === undefined || at === '') return '—';
  const d = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  return DATE_TIME.format(d);
}

/** "just now", "42 s ago", "2 min ago", "5 h ago", then the date. */
export function relativeTime(at: number, now: number): string {
  const s = Math.round((now - at) / 1000);
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return formatDateTime(at);
}

/** 1536 -> "1.5 kB" (display only). */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
