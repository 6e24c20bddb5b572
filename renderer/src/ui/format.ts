// Pure text formatting shared by the UI bits (no React, so plain tests can import it).

/** "1234567.50" -> "1,234,567.50" (string work only, no float maths). */
export function groupDigits(decimal: string): string {
  const neg = decimal.startsWith('-');
  const [int, frac] = (neg ? decimal.slice(1) : decimal).split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${grouped}${frac !== undefined ? '.' + frac : ''}`;
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
  return new Date(at).toLocaleDateString();
}
