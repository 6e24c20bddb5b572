// One collection: every source side by side (status, amount, currency, time, signature), its events, and
// resolution with a required note. It follows the team: a resolution another desk records (or anything
// else pulled for this collection) is read again as soon as main says this collection changed, so the
// detail says who resolved it and no longer offers Resolve.
import { useEffect, useRef, useState } from 'react';
import type { ExceptionDetail, ResolutionShown } from '../../../../main/reconcile/types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { StatusBadge } from '../../ui/StatusBadge.js';
import { formatDateTime } from '../../ui/format.js';
import { kindBadgeClass, kindLabel } from './labels.js';
import { RefusedResolution, ResolveForm, type Refusal } from './ResolveForm.js';
import { EventsTable } from './EventsTable.js';
import { SourcesTable } from './SourcesTable.js';

/** "Resolved by kofi at 26 Nov 2025, 10:42: note", from the resolution the reconciliation names. */
function resolvedText(r: ResolutionShown): string {
  return `${r.by ?? 'someone'} at ${formatDateTime(r.at)}${r.note ? `: ${r.note}` : ''}`;
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
  return (
    <div>
      <div className="screen-header">
        <h2 id="detail-title" ref={heading} tabIndex={-1}>
          Detail: <span className="mono">{ref}</span>
        </h2>
        <button type="button" onClick={onClose} aria-label="Close detail">
          Close
        </button>
      </div>
      <ErrorBanner error={q.error} title="Could not load this collection" />
      {q.loading && <Loading what="the collection" />}
      {d && (
        <>
          <CollectionFacts d={d} />
          <h3>Sources</h3>
          <SourcesTable detail={d} />
          <DetailResolution
            d={d}
            collectionId={collectionId}
            label={`Resolve ${ref}`}
            reload={() => void q.reload()}
            onResolved={onResolved}
          />
          <h3>Events</h3>
          <EventsTable rows={d.events} label="Events of this collection" height={260} showReference={false} />
        </>
      )}
    </div>
  );
}

/** Amount, status, references, customer and the reconciliation's outcome. */
function CollectionFacts({ d }: { d: ExceptionDetail }) {
  const rec = d.reconciliation;
  return (
    <dl className="kv">
      <dt>Amount</dt>
      <dd>
        <Money minor={d.collection.amount_minor as number} currency={d.collection.currency as string} />
      </dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={d.collection.status as string | null | undefined} />
      </dd>
      <dt>Internal reference</dt>
      <dd className="mono">{String(d.collection.internal_reference ?? '—')}</dd>
      <dt>Customer</dt>
      <dd>{String(d.collection.customer_name ?? '—')}</dd>
      <dt>Outcome</dt>
      <dd className="kinds">
        {rec ? (
          rec.kinds.map((k) => (
            <span key={k} className={rec.openKinds.includes(k) ? kindBadgeClass(k) : 'badge'}>
              {kindLabel(k)}
            </span>
          ))
        ) : (
          <span className="badge">not reconciled yet</span>
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
  return (
    <>
      {refusal && <RefusedResolution refusal={refusal} />}
      {d.resolution && (
        <div className="banner info" role="status">
          <div>
            <strong>{rec?.isException ? 'Last resolved by' : 'Resolved by'}</strong> {resolvedText(d.resolution)}
            {rec?.isException && <> (something happened after it: resolve it again)</>}
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
          onRefused={(message, note) => {
            setRefused({ message, note, collectionId });
            reload();
          }}
        />
      )}
      {justResolved && rec?.resolvedByEventId == null && (
        <p role="status" className="as-of">
          Resolution recorded.
        </p>
      )}
    </>
  );
}
