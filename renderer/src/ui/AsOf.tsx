import { useNow } from '../hooks.js';
import { useWords } from '../words/index.js';

/** "last updated 2 min ago" with the exact time on hover; "never" when there is no time. */
export function AsOf({ at, stale, prefix }: { at: number | null | undefined; stale?: boolean; prefix?: string }) {
  const now = useNow();
  const { t, f, ago } = useWords();
  const lead = prefix ?? t('ui.asOf.lastUpdated');
  if (!at) return <span className="as-of">{t('ui.asOf.never', { prefix: lead })}</span>;
  const iso = new Date(at).toISOString();
  return (
    <span className={stale ? 'as-of stale' : 'as-of'}>
      {lead}{' '}
      <time dateTime={iso} title={f.dateTime(at)}>
        {ago(at, now)}
      </time>
      {stale && <span className="stale-badge"> {t('ui.asOf.stale')}</span>}
    </span>
  );
}
