import { useNow } from '../hooks.js';
import { formatDateTime, relativeTime } from './format.js';

/** "last updated 2 min ago" with the exact time on hover; "never" when there is no time. */
export function AsOf({
  at,
  stale,
  prefix = 'last updated',
}: {
  at: number | null | undefined;
  stale?: boolean;
  prefix?: string;
}) {
  const now = useNow();
  if (!at) return <span className="as-of">{prefix} never</span>;
  const iso = new Date(at).toISOString();
  return (
    <span className={stale ? 'as-of stale' : 'as-of'}>
      {prefix}{' '}
      <time dateTime={iso} title={formatDateTime(at)}>
        {relativeTime(at, now)}
      </time>
      {stale && <span className="stale-badge"> (stale)</span>}
    </span>
  );
}
