// Reconciliation for back-office staff: summary (counts by outcome, open exceptions by kind), the full
// recompute with progress and cancel, then tabs: exceptions queue + detail, orphan callbacks, audit,
// balance movement, refused callbacks (each drawn with ReconTable).
import { lazy, Suspense, useState } from 'react';
import '../../ui/extra.css';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { Tabs } from '../../ui/Tabs.js';
import { FullRun, OpenCounts } from './Summary.js';
import { Exceptions } from './Exceptions.js';
import { Orphans } from './Orphans.js';
import { Audit } from './Audit.js';
import { Movement } from './Movement.js';
import { SecurityLog } from './SecurityLog.js';

// recharts is loaded only when a chart is drawn (it would otherwise slow every start).
const OutcomeChart = lazy(() => import('./OutcomeChart.js').then((m) => ({ default: m.OutcomeChart })));

export function ReconciliationScreen() {
  // The counts follow the team: a pulled batch that changed collections or stored orphans.
  const summary = useDeskQuery(
    'reconcile.summary',
    {},
    { refreshOn: ['callbacks.ingested', 'collections.updated', 'orphans.updated'] },
  );
  const [tab, setTab] = useState('exceptions');
  const [version, setVersion] = useState(0);
  const s = summary.data;
  // A resolution reloads the summary (the lists reload themselves); a full run reloads everything.
  const changed = () => void summary.reload();
  const afterRun = () => {
    void summary.reload();
    setVersion((v) => v + 1);
  };
  // The count is part of the tab's visible text, so it is part of its accessible name too ("Exceptions 3
  // open"): a separate aria-label would not match what a speech-input user sees and says.
  const count = (n: number | undefined) =>
    n ? (
      <>
        {' '}
        <span className="badge err count">
          {n.toLocaleString()}
          <span className="sr-only"> open</span>
        </span>
      </>
    ) : null;

  return (
    <Screen
      title="Reconciliation"
      actions={
        <button type="button" onClick={() => void summary.reload()} disabled={summary.busy}>
          {summary.busy ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <ErrorBanner
        error={summary.error}
        title="Could not compute the summary"
        action={<button onClick={() => void summary.reload()}>Retry</button>}
      />
      {summary.loading && <Loading what="the reconciliation summary" />}
      {s && (
        <div className="recon-top">
          <OpenCounts summary={s} />
          <section className="panel" aria-labelledby="outcome-title">
            <h2 id="outcome-title">Collections by outcome</h2>
            {s.collections === 0 ? (
              <p className="as-of">No collections yet: outcomes appear once payments are taken.</p>
            ) : (
              <Suspense fallback={<Loading what="the chart" />}>
                <OutcomeChart summary={s} />
              </Suspense>
            )}
          </section>
        </div>
      )}
      <FullRun onDone={afterRun} />
      <Tabs
        label="Reconciliation views"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'exceptions', label: <>Exceptions{count(s?.openExceptions)}</> },
          { id: 'orphans', label: <>Unknown references{count(s?.orphans.open)}</> },
          { id: 'audit', label: 'Audit', name: 'Audit' },
          { id: 'movement', label: 'Balance movement', name: 'Balance movement' },
          { id: 'refused', label: 'Refused callbacks', name: 'Refused callbacks' },
        ]}
      >
        {tab === 'exceptions' && <Exceptions key={version} onChanged={changed} />}
        {tab === 'orphans' && <Orphans key={version} onChanged={changed} />}
        {tab === 'audit' && <Audit key={version} />}
        {tab === 'movement' && <Movement key={version} />}
        {tab === 'refused' && <SecurityLog key={version} />}
      </Tabs>
    </Screen>
  );
}
