// <input type="date"> values ("YYYY-MM-DD", the user's local calendar day) <-> ms since the epoch.

/** Local midnight at the start of the day, or undefined for an empty/invalid value. */
export function dayStart(value: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!m) return undefined;
  const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
  return Number.isFinite(t) ? t : undefined;
}

/** Local midnight at the END of the day (the next day's start): an exclusive upper bound that includes the day. */
export function dayEnd(value: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!m) return undefined;
  const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).getTime();
  return Number.isFinite(t) ? t : undefined;
}

/** "YYYY-MM-DD" of a time in the local calendar. */
export function dayValue(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}
