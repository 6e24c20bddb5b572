// Reconciliation for back-office staff: summary (counts by outcome, open exceptions by kind), the full
// recompute with progress and cancel, then tabs: exceptions queue + detail, orphan callbacks, audit,
// balance movement.
import { useState } from 'react';
import '../../ui/extra.css';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { Tabs } from '../../ui/Tabs.js';
import { FullRun, OpenCounts, OutcomeChart } from './Summary.js';
import { Exceptions } from './Exceptions.js';
import { Orphans } from './Orphans.js';
import { Audit } from './Audit.js';
import { Movement } from './Movement.js';

export function ReconciliationScreen() {
  const summary = useDeskQuery('reconcile.summary', {}, { refreshOn: ['callbacks.ingested', 'collections.updated'] });
  const [tab, setTab] = useState('exceptions');
  const [version, setVersion] = useState(0);
  const s = summary.data;
  // A resolution reloads the summary (the lists reload themselves); a full run reloads everything.
  const changed = () => void summary.reload();
  const afterRun = () => {
    void summary.reload();
    setVersion((v) => v + 1);
  };
  const count = (n: number | undefined) => (n ? <span className="badge err count">{n}</span> : null);

  return (
    <Screen
      title="Reconciliation"
      actions={
        <button type="button" onClick={() => void summary.reload()} disabled={summary.busy}>
          {summary.busy ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <ErrorBanner error={summary.error} title="Could not compute the summary" action={<button onClick={() => void summary.reload()}>Retry</button>} />
      {summary.loading && <Loading what="the reconciliation summary" />}
      {s && (
        <div className="recon-top">
          <OpenCounts summary={s} />
          <section className="panel" aria-labelledby="outcome-title">
            <h2 id="outcome-title">Collections by outcome</h2>
            {s.collections === 0 ? <p className="as-of">No collections yet: outcomes appear once payments are taken.</p> : <OutcomeChart summary={s} />}
          </section>
        </div>
      )}
      <FullRun onDone={afterRun} />
      <Tabs
        label="Reconciliation views"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'exceptions', label: <>Exceptions{count(s?.openExceptions)}</>, name: `Exceptions${s?.openExceptions ? ` (${s.openExceptions} open)` : ''}` },
          { id: 'orphans', label: <>Unknown references{count(s?.orphans.open)}</>, name: `Unknown references${s?.orphans.open ? ` (${s.orphans.open} open)` : ''}` },
          { id: 'audit', label: 'Audit', name: 'Audit' },
          { id: 'movement', label: 'Balance movement', name: 'Balance movement' },
        ]}
      >
        {tab === 'exceptions' && <Exceptions key={version} onChanged={changed} />}
        {tab === 'orphans' && <Orphans key={version} onChanged={changed} />}
        {tab === 'audit' && <Audit key={version} />}
        {tab === 'movement' && <Movement key={version} />}
      </Tabs>
    </Screen>
  );
}
