import { useNow } from '../hooks.js';

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

/** "last updated 2 min ago" with the exact time on hover; "never" when there is no time. */
export function AsOf({ at, stale, prefix = 'last updated' }: { at: number | null | undefined; stale?: boolean; prefix?: string }) {
  const now = useNow();
  if (!at) return <span className="as-of">{prefix} never</span>;
  const iso = new Date(at).toISOString();
  return (
    <span className={stale ? 'as-of stale' : 'as-of'}>
      {prefix}{' '}
      <time dateTime={iso} title={new Date(at).toLocaleString()}>
        {relativeTime(at, now)}
      </time>
      {stale && <span className="stale-badge"> (stale)</span>}
    </span>
  );
}
