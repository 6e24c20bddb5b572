// Reports for finance: the balance report (summary + snapshots) for a date range, and the collections
// report (optionally for a date range), each as CSV or an Excel workbook, with a BOM option (CSV), a
// file name, progress with Cancel, and the result.
import '../../ui/extra.css';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { dayValue } from '../../ui/dates.js';
import { ExportForm } from './ExportForm.js';
import { useWords } from '../../words/index.js';

export function ReportsScreen() {
  const target = useDeskQuery('reports.target', {});
  const now = new Date();
  const monthStart = dayValue(new Date(now.getFullYear(), now.getMonth(), 1).getTime());
  const today = dayValue(now.getTime());
  const { t, rich } = useWords();
  return (
    <Screen title={t('app.screen.reports')}>
      <ErrorBanner
        error={target.error}
        title={t('reports.prepareFailed')}
        action={<button onClick={() => void target.reload()}>{t('ui.retry')}</button>}
      />
      {target.loading && <Loading text={t('reports.loading')} />}
      {target.data && !target.data.canChoose && (
        <p className="as-of">
          {rich('reports.folder', {
            folder: (
              <span className="mono" translate="no">
                {target.data.folder}
              </span>
            ),
          })}
        </p>
      )}
      <ExportForm
        kind="balances"
        title={t('reports.balances')}
        target={target.data}
        rangeRequired
        initialFrom={monthStart}
        initialTo={today}
        description={t('reports.balancesAbout')}
      />
      <ExportForm
        kind="collections"
        title={t('reports.collections')}
        target={target.data}
        rangeRequired={false}
        description={t('reports.collectionsAbout')}
      />
    </Screen>
  );
}
