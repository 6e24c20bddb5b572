// Reports for finance: the balance report (summary + snapshots) for a date range, and the collections
// report (optionally for a date range), each as CSV or an Excel workbook, with a BOM option (CSV), a
// file name, progress with Cancel, and the result.
import '../../ui/extra.css';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { dayValue } from '../../ui/dates.js';
import { ExportForm } from './ExportForm.js';

export function ReportsScreen() {
  const target = useDeskQuery('reports.target', {});
  const now = new Date();
  const monthStart = dayValue(new Date(now.getFullYear(), now.getMonth(), 1).getTime());
  const today = dayValue(now.getTime());
  return (
    <Screen title="Reports">
      <ErrorBanner
        error={target.error}
        title="Could not prepare the exports"
        action={<button onClick={() => void target.reload()}>Retry</button>}
      />
      {target.loading && <Loading what="export settings" />}
      {target.data && !target.data.canChoose && (
        <p className="as-of">
          Files are saved in the app's exports folder, <span className="mono">{target.data.folder}</span> (open it in
          your file manager to find them); you choose the file name.
        </p>
      )}
      <ExportForm
        kind="balances"
        title="Balance report"
        target={target.data}
        rangeRequired
        initialFrom={monthStart}
        initialTo={today}
        description="Per currency and wallet type: opening, closing, lowest, highest and change over the days chosen, plus every snapshot (a second file, or a second sheet in Excel)."
      />
      <ExportForm
        kind="collections"
        title="Collections report"
        target={target.data}
        rangeRequired={false}
        description="Every collection with each source's status, the reconciliation outcome and any resolution note. Leave the dates empty for all of them."
      />
    </Screen>
  );
}
