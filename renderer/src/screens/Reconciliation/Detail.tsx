// One collection: every source side by side (status, amount, currency, time, signature), its events, and
// resolution with a required note. It follows the team: a resolution another desk records (or anything
// else pulled for this collection) is read again as soon as main says this collection changed, so the
// detail says who resolved it and no longer offers Resolve.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ExceptionDetail, ResolutionShown, SourceColumn } from '../../../../main/reconcile/types.shared.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { shortTime } from '../../ui/dates.js';
import { StatusBadge } from '../../ui/StatusBadge.js';
import { isFinalStatus as finalOf, statusLabel } from '../../ui/status.js';
import { SIGNATURE_LABEL, SOURCE_LABEL, kindBadgeClass, kindLabel } from './labels.js';
import { ResolveForm } from './ResolveForm.js';
import { EventsTable } from './Audit.js';

export function SourcesTable({ detail }: { detail: ExceptionDetail }) {
  const cols = detail.sources.filter((s) => s.source !== 'security' || s.events > 0);
  const intent = cols.find((s) => s.source === 'intent');
  const finals = new Set(cols.filter((s) => s.source !== 'intent' && finalOf(s.status)).map((s) => s.status));
  // A final status the service changed itself (allow_final_status_change) differs by design: shown as
  // "changed after final" in the warning style, not as a contradiction.
  const kinds = detail.reconciliation?.kinds ?? [];
  const changedAfterFinal = kinds.includes('final_status_changed') && !kinds.includes('redirect_callback_disagree');
  const statusOff = (s: SourceColumn) => finals.size > 1 && finalOf(s.status);
  const amountOff = (s: SourceColumn) =>
    s.source !== 'intent' && s.amountMinor !== null && intent && s.amountMinor !== intent.amountMinor;
  const currencyOff = (s: SourceColumn) =>
    s.source !== 'intent' && s.currency !== null && intent && s.currency !== intent.currency;
  const sigOff = (s: SourceColumn) => s.signature === 'invalid';
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Sources side by side (scrollable)">
      <table className="table sources-table" aria-label="Sources side by side">
        <thead>
          <tr>
            <th scope="col">
              <span className="sr-only">Field</span>
            </th>
            {cols.map((s) => (
              <th scope="col" key={s.source}>
                {SOURCE_LABEL[s.source] ?? s.source}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Status</th>
            {cols.map((s) => (
              <td key={s.source} className={statusOff(s) ? (changedAfterFinal ? 'changed' : 'disagree') : undefined}>
                {statusLabel(s.status)}
                {statusOff(s) && changedAfterFinal && <span className="cell-note"> (changed after final)</span>}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">Amount</th>
            {cols.map((s) => (
              <Cell key={s.source} off={amountOff(s)}>
                {s.amountMinor === null ? (
                  '—'
                ) : (
                  <Money minor={s.amountMinor} currency={s.currency ?? intent?.currency ?? ''} code={false} />
                )}
              </Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">Currency</th>
            {cols.map((s) => (
              <Cell key={s.source} off={currencyOff(s)}>
                {s.currency ?? '—'}
              </Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">Time</th>
            {cols.map((s) => (
              <Cell key={s.source}>{shortTime(s.receivedAt)}</Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">Signature</th>
            {cols.map((s) => (
              <Cell key={s.source} off={sigOff(s)}>
                {s.signature ? (SIGNATURE_LABEL[s.signature] ?? s.signature) : '—'}
              </Cell>
            ))}
          </tr>
          <tr>
            <th scope="row">Events</th>
            {cols.map((s) => (
              <Cell key={s.source}>{s.events}</Cell>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function Cell({ off, children }: { off?: boolean | undefined; children: ReactNode }) {
  return <td className={off ? 'disagree' : undefined}>{children}</td>;
}

/** "Resolved by kofi at 26 Nov 2025, 10:42: note", from the resolution the reconciliation names. */
export function resolvedText(r: ResolutionShown): string {
  return `${r.by ?? 'someone'} at ${shortTime(r.at)}${r.note ? `: ${r.note}` : ''}`;
}

/** The database refused this desk's resolution: what it said, and the note that was not recorded. */
export interface Refusal {
  message: string;
  note: string;
}

export function RefusedResolution({ refusal }: { refusal: Refusal }) {
  return (
    <div className="banner error" role="alert">
      <div>
        <strong>Your resolution was not recorded: </strong>
        {refusal.message}
        <div className="cell-note">
          Your note (not recorded): <q>{refusal.note}</q>
        </div>
      </div>
    </div>
  );
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
  const reference = useRef<string>(undefined);
  const q = useDeskQuery(
    'reconcile.detail',
    { collectionId },
    {
      refreshOn: ['collections.updated', 'callbacks.ingested'],
      // Only this collection: by id (a pulled batch, a charge), or by reference (a delivery).
      shows: (t) => (t.id !== undefined ? t.id === collectionId : t.reference === reference.current),
    },
  );
  const d = q.data;
  useEffect(() => {
    reference.current = d?.collection.merchant_reference as string | undefined;
  }, [d]);
  const [justResolved, setJustResolved] = useState<string | null>(null);
  // Kept with the collection it is about: another row chosen, it is not shown.
  const [refused, setRefused] = useState<(Refusal & { collectionId: number }) | null>(null);
  const refusal = refused?.collectionId === collectionId ? refused : null;
  const heading = useRef<HTMLHeadingElement>(null);
  // Choosing a row moves focus (and the view) to its detail.
  const loaded = q.data !== undefined;
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
    heading.current?.scrollIntoView({ block: 'start' });
  }, [collectionId, loaded]);
  const rec = d?.reconciliation ?? null;
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
          <h3>Sources</h3>
          <SourcesTable detail={d} />
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
              label={`Resolve ${ref}`}
              onResolved={(note) => {
                setJustResolved(note);
                setRefused(null);
                void q.reload();
                onResolved();
              }}
              onRefused={(message, note) => {
                setRefused({ message, note, collectionId });
                void q.reload();
              }}
            />
          )}
          {justResolved && rec?.resolvedByEventId == null && (
            <p role="status" className="as-of">
              Resolution recorded.
            </p>
          )}
          <h3>Events</h3>
          <EventsTable rows={d.events} label="Events of this collection" height={260} showReference={false} />
        </>
      )}
    </div>
  );
}
