// One collection: every source side by side (status, amount, currency, time, signature), its events, and
// resolution with a required note. It follows the team: a resolution another desk records (or anything
// else pulled for this collection) is read again as soon as main says this collection changed, so the
// detail says who resolved it and no longer offers Resolve.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ExceptionDetail, ResolutionShown } from '../../../../main/reconcile/types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { StatusBadge } from '../../ui/StatusBadge.js';
import { useWords, type Say } from '../../words/index.js';
import { kindBadgeClass, kindLabel } from './labels.js';
import { RefusedResolution, ResolveForm, type Refusal } from './ResolveForm.js';
import { EventsTable } from './EventsTable.js';
import { SourcesTable } from './SourcesTable.js';

const b = (chunks: ReactNode[]) => <strong>{chunks}</strong>;

/** "Resolved by kofi at 26 Nov 2025, 10:42: note", from the resolution the reconciliation names. */
export function resolvedText(
  { t, rich }: Pick<Say, 't' | 'rich'>,
  r: Pick<ResolutionShown, 'by' | 'note'> & { at: number | string | null },
  last = false,
): ReactNode {
  const by = r.by ?? t('ui.someone');
  const at: number | string = r.at === null ? '—' : typeof r.at === 'number' ? r.at : Date.parse(r.at);
  // The note is as its writer typed it: said as it is.
  const note = r.note ? <q translate="no">{r.note}</q> : undefined;
  if (last)
    return note ? rich('recon.lastResolvedByNote', { b, by, at, note }) : rich('recon.lastResolvedBy', { b, by, at });
  return note ? rich('recon.resolvedByNote', { b, by, at, note }) : rich('recon.resolvedBy', { b, by, at });
}

/** The collection's detail, read again when a push names it: by id (a pulled batch, a charge), or by reference (a delivery). */
function useExceptionDetail(collectionId: number) {
  const reference = useRef<string>(undefined);
  const q = useDeskQuery(
    'reconcile.detail',
    { collectionId },
    {
      refreshOn: ['collections.updated', 'callbacks.ingested'],
      shows: (t) => (t.id !== undefined ? t.id === collectionId : t.reference === reference.current),
    },
  );
  useEffect(() => {
    reference.current = q.data?.collection.merchant_reference as string | undefined;
  }, [q.data]);
  return q;
}

export function Detail({
  collectionId,
  onResolved,
  onClose,
}: {
  collectionId: number;
  onResolved: () => void;
  onClose: () => void;
}) {
  const q = useExceptionDetail(collectionId);
  const d = q.data;
  const heading = useRef<HTMLHeadingElement>(null);
  // Choosing a row moves focus (and the view) to its detail.
  const loaded = d !== undefined;
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
    heading.current?.scrollIntoView({ block: 'start' });
  }, [collectionId, loaded]);
  const ref = (d?.collection.merchant_reference as string | undefined) ?? `#${collectionId}`;
  const { t, rich } = useWords();
  return (
    <div>
      <div className="screen-header">
        <h2 id="detail-title" ref={heading} tabIndex={-1}>
          {rich('recon.detail.title', {
            reference: (
              <span className="mono" translate="no">
                {ref}
              </span>
            ),
          })}
        </h2>
        <button type="button" onClick={onClose} aria-label={t('recon.detail.close')}>
          {t('recon.close')}
        </button>
      </div>
      <ErrorBanner error={q.error} title={t('recon.detail.failed')} />
      {q.loading && <Loading text={t('recon.detail.loading')} />}
      {d && (
        <>
          <CollectionFacts d={d} />
          <h3>{t('recon.detail.sources')}</h3>
          <SourcesTable detail={d} />
          <DetailResolution
            d={d}
            collectionId={collectionId}
            label={t('recon.detail.resolve', { reference: ref })}
            reload={() => void q.reload()}
            onResolved={onResolved}
          />
          <h3>{t('recon.detail.events')}</h3>
          <EventsTable rows={d.events} label={t('recon.detail.eventsTable')} height={260} showReference={false} />
        </>
      )}
    </div>
  );
}

/** Amount, status, references, customer and the reconciliation's outcome. */
function CollectionFacts({ d }: { d: ExceptionDetail }) {
  const rec = d.reconciliation;
  const { t } = useWords();
  return (
    <dl className="kv">
      <dt>{t('recon.detail.amount')}</dt>
      <dd>
        <Money minor={d.collection.amount_minor as number} currency={d.collection.currency as string} />
      </dd>
      <dt>{t('recon.detail.status')}</dt>
      <dd>
        <StatusBadge status={d.collection.status as string | null | undefined} />
      </dd>
      <dt>{t('recon.detail.internal')}</dt>
      <dd className="mono" translate="no">
        {String(d.collection.internal_reference ?? '—')}
      </dd>
      <dt>{t('recon.detail.customer')}</dt>
      <dd translate="no">{String(d.collection.customer_name ?? '—')}</dd>
      <dt>{t('recon.detail.outcome')}</dt>
      <dd className="kinds">
        {rec ? (
          rec.kinds.map((k) => (
            <span key={k} className={rec.openKinds.includes(k) ? kindBadgeClass(k) : 'badge'}>
              {kindLabel(t, k)}
            </span>
          ))
        ) : (
          <span className="badge">{t('recon.detail.notYet')}</span>
        )}
      </dd>
    </dl>
  );
}

/** Who resolved it (and whether it needs resolving again), the form while it is an exception, and a refusal. */
function DetailResolution({
  d,
  collectionId,
  label,
  reload,
  onResolved,
}: {
  d: ExceptionDetail;
  collectionId: number;
  label: string;
  reload: () => void;
  onResolved: () => void;
}) {
  const rec = d.reconciliation;
  const [justResolved, setJustResolved] = useState<string | null>(null);
  // Kept with the collection it is about: another row chosen, it is not shown.
  const [refused, setRefused] = useState<(Refusal & { collectionId: number }) | null>(null);
  const refusal = refused?.collectionId === collectionId ? refused : null;
  const w = useWords();
  return (
    <>
      {refusal && <RefusedResolution refusal={refusal} />}
      {d.resolution && (
        <div className="banner info" role="status">
          <div>
            {resolvedText(w, d.resolution, rec?.isException ?? false)}
            {rec?.isException && <> {w.t('recon.resolveAgain')}</>}
          </div>
        </div>
      )}
      {rec?.isException && (
        <ResolveForm
          target={{ collectionId }}
          label={label}
          onResolved={(note) => {
            setJustResolved(note);
            setRefused(null);
            reload();
            onResolved();
          }}
          onRefused={(error, note) => {
            setRefused({ error, note, collectionId });
            reload();
          }}
        />
      )}
      {justResolved && rec?.resolvedByEventId == null && (
        <p role="status" className="as-of">
          {w.t('recon.resolutionRecorded')}
        </p>
      )}
    </>
  );
}
