// Reconciliation for back-office staff: summary (counts by outcome, open exceptions by kind), the full
// recompute with progress and cancel, then tabs: exceptions queue + detail, orphan callbacks, audit,
// balance movement, refused callbacks (each drawn with ReconTable).
import { lazy, Suspense, useState } from 'react';
import '../../ui/extra.css';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Screen } from '../../ui/index.js';
import { Tabs } from '../../ui/Tabs.js';
import { useWords } from '../../words/index.js';
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
  const { t, f } = useWords();
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
          {f.number(n)}
          <span className="sr-only"> {t('recon.openSr')}</span>
        </span>
      </>
    ) : null;

  return (
    <Screen
      title={t('app.screen.reconciliation')}
      actions={
        <button type="button" onClick={() => void summary.reload()} disabled={summary.busy}>
          {t(summary.busy ? 'recon.refreshing' : 'recon.refresh')}
        </button>
      }
    >
      <ErrorBanner
        error={summary.error}
        title={t('recon.summaryFailed')}
        action={<button onClick={() => void summary.reload()}>{t('recon.retry')}</button>}
      />
      {summary.loading && <Loading text={t('recon.summaryLoading')} />}
      {s && (
        <div className="recon-top">
          <OpenCounts summary={s} />
          <section className="panel" aria-labelledby="outcome-title">
            <h2 id="outcome-title">{t('recon.byOutcome')}</h2>
            {s.collections === 0 ? (
              <p className="as-of">{t('recon.noCollections')}</p>
            ) : (
              <Suspense fallback={<Loading text={t('recon.chartLoading')} />}>
                <OutcomeChart summary={s} />
              </Suspense>
            )}
          </section>
        </div>
      )}
      <FullRun onDone={afterRun} />
      <Tabs
        label={t('recon.views')}
        selected={tab}
        onSelect={setTab}
        tabs={[
          {
            id: 'exceptions',
            label: (
              <>
                {t('recon.tab.exceptions')}
                {count(s?.openExceptions)}
              </>
            ),
          },
          {
            id: 'orphans',
            label: (
              <>
                {t('recon.tab.orphans')}
                {count(s?.orphans.open)}
              </>
            ),
          },
          { id: 'audit', label: t('recon.tab.audit'), name: t('recon.tab.audit') },
          { id: 'movement', label: t('recon.tab.movement'), name: t('recon.tab.movement') },
          { id: 'refused', label: t('recon.tab.refused'), name: t('recon.tab.refused') },
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
