// One collection: what was asked, what each source said, its flags, and the whole event timeline
// (source, time, status, whether the signature verified, the raw payload as received).
import { useEffect, useRef } from 'react';
import type { CollectionRow, EventRow } from '../../../../main/ipc/contract/collections.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { Flags, SignatureBeingChecked, StatusBadge, flagLabel } from '../../ui/StatusBadge.js';
import { statusLabel } from '../../ui/status.js';
import { SourcesAgree, sourcesText } from './Sources.js';
import { brandName } from '../TakePayment/Receipt.js';
import { formatDateTime } from '../../ui/format.js';

const KIND: Record<string, string> = {
  intent_saved: 'Intent saved',
  initialize_accepted: 'Initialize accepted',
  initialize_rejected: 'Initialize rejected',
  initialize_unknown: 'Initialize outcome unknown',
  initialize_exists: 'Already exists (same reference)',
  outcome: 'Outcome reported',
  final_status_changed: 'Changed after final',
  window_closed: 'Payment window closed',
  bad_signature: 'Bad signature',
  resolution: 'Resolved',
  manual_status: 'Status recorded by hand',
};

const SIGNATURE: Record<string, { text: string; tone: string }> = {
  verified: { text: 'Signature verified', tone: 'ok' },
  invalid: { text: 'Signature INVALID', tone: 'err' },
  missing: { text: 'No signature', tone: 'warn' },
  not_applicable: { text: 'No signature needed', tone: 'off' },
};

const FLAG_HELP: Record<string, string> = {
  final_status_changed:
    'The service changed a final status after reporting it (allow_final_status_change). Both reports are in the timeline.',
  amount_mismatch: 'A callback reported a different amount than the one charged.',
  currency_mismatch: 'A callback reported a different currency than the one charged.',
  bad_signature:
    'A redirect, callback or import whose signature this desk could not verify (or, on a team desk, an unsigned initialize answer claiming a final status); it did not change the status. The timeline says who wrote it.',
  sources_disagree: 'The redirect and the callback report different final statuses.',
};

function TimelineItem({ e }: { e: EventRow }) {
  const sig = SIGNATURE[e.signature] ?? { text: e.signature, tone: 'off' };
  const at = new Date(e.receivedAt);
  return (
    <li className={`timeline-item source-${e.source}`}>
      <div className="timeline-head">
        <time dateTime={at.toISOString()}>{formatDateTime(at)}</time>
        <span className="badge source">{e.source}</span>
        <span className="strong">{KIND[e.kind] ?? e.kind}</span>
        {e.status && <StatusBadge status={e.status} />}
        {e.signatureBeingChecked ? (
          <SignatureBeingChecked checking />
        ) : (
          <span className={`badge ${sig.tone}`}>{sig.text}</span>
        )}
        {e.amountMinor !== null && e.currency && <Money minor={e.amountMinor} currency={e.currency} />}
      </div>
      {e.note && <p className="timeline-note">{e.note}</p>}
      {e.actor && <p className="timeline-note">by {e.actor}</p>}
      {e.teamRefused && (
        <p className="timeline-note team-refused" role="note">
          {e.teamRefused}
        </p>
      )}
      {e.payload && (
        <details>
          <summary>{e.source === 'callback' || e.source === 'import' ? 'Raw callback payload' : 'Raw payload'}</summary>
          {/* Exactly as received: it is evidence, so it is never parsed and re-serialised. */}
          <pre
            className="payload mono"
            data-testid="raw-payload"
            tabIndex={0}
            role="region"
            aria-label="Payload as received"
          >
            {e.payload}
          </pre>
        </details>
      )}
    </li>
  );
}

/** The collection, read again when a push names it: by id, or by reference for a delivery. */
function useCollection(id: number) {
  const reference = useRef<string>(undefined);
  const q = useDeskQuery(
    'collections.get',
    { id },
    {
      refreshOn: ['collections.updated', 'callbacks.ingested'],
      shows: (t) => (t.id !== undefined ? t.id === id : t.reference === reference.current),
    },
  );
  useEffect(() => {
    reference.current = q.data?.collection.merchantReference;
  }, [q.data]);
  return q;
}

export function CollectionDetail({ id, onBack }: { id: number; onBack: () => void }) {
  const q = useCollection(id);
  // Focus lands on the title (not the Back button: the Enter that opened this would activate it).
  const title = useRef<HTMLHeadingElement>(null);
  const loaded = q.data !== undefined;
  useEffect(() => {
    if (loaded) title.current?.focus({ preventScroll: false });
  }, [id, loaded]);
  const c = q.data?.collection;
  const events = q.data?.events ?? [];
  return (
    <section className="collection-detail" aria-labelledby="detail-title">
      <div className="row detail-bar">
        <button type="button" onClick={onBack}>
          ← Back to the list
        </button>
      </div>
      <ErrorBanner error={q.error} title="Could not read this collection" />
      {q.loading && <Loading what="the collection" />}
      {c && (
        <>
          <div className="panel">
            <h2 id="detail-title" ref={title} tabIndex={-1}>
              <span className="mono">{c.merchantReference}</span> <StatusBadge status={c.status} />{' '}
              <SignatureBeingChecked checking={c.signatureBeingChecked} />
            </h2>
            <CollectionFacts c={c} />
            <FlagHelp c={c} />
            <NotAcceptedByTeam refused={events.filter((e) => e.teamRefused)} />
          </div>
          <div className="panel">
            <h2>Timeline</h2>
            <ol className="timeline" aria-label="Event timeline">
              {events.map((e) => (
                <TimelineItem key={e.id} e={e} />
              ))}
            </ol>
          </div>
        </>
      )}
    </section>
  );
}

/** What was asked (amount, description, customer, card), and what the sources and the flags say. */
function CollectionFacts({ c }: { c: CollectionRow }) {
  return (
    <dl className="kv">
      <dt>Amount</dt>
      <dd>
        <Money minor={c.amountMinor} currency={c.currency} />
        {c.chargeCustomer ? ' (customer pays the charge)' : ''}
      </dd>
      <dt>Description</dt>
      <dd>{c.description}</dd>
      <dt>Created</dt>
      <dd>
        <time dateTime={new Date(c.createdAt).toISOString()}>{formatDateTime(c.createdAt)}</time> by {c.operator}
      </dd>
      <dt>Customer</dt>
      <dd>
        {c.customerName ?? '—'}
        {c.customerEmail ? ` <${c.customerEmail}>` : ''}
      </dd>
      <dt>Card</dt>
      <dd>{c.cardLast4 ? `${brandName(c.cardBrand)} •••• ${c.cardLast4}` : '—'}</dd>
      <dt>Service reference</dt>
      <dd className="mono">{c.internalReference ?? '—'}</dd>
      <dt>Status</dt>
      <dd>
        {statusLabel(c.status)}
        {c.statusMessage ? ` — ${c.statusMessage}` : ''}
      </dd>
      <dt>Sources</dt>
      <dd>
        <SourcesAgree c={c} /> {sourcesText(c)}
      </dd>
      <dt>Final status may change</dt>
      <dd>{c.allowFinalStatusChange ? 'yes' : 'no'}</dd>
      <dt>Flags</dt>
      <dd>
        <Flags flags={c.flags} />
      </dd>
    </dl>
  );
}

/** What each flag means. */
function FlagHelp({ c }: { c: CollectionRow }) {
  if (c.flags.length === 0) return null;
  return (
    <ul className="flag-help" aria-label="What the flags mean">
      {c.flags.map((f) => (
        <li key={f}>
          <strong>{flagLabel(f)}:</strong> {FLAG_HELP[f] ?? ''}
          {f === 'final_status_changed' && c.finalChanges > 0
            ? ` (${c.finalChanges} change${c.finalChanges > 1 ? 's' : ''})`
            : ''}
        </li>
      ))}
    </ul>
  );
}

/** Events the team database refused: kept on this desk only, and why. */
function NotAcceptedByTeam({ refused }: { refused: EventRow[] }) {
  if (refused.length === 0) return null;
  return (
    <div className="team-refused" role="alert" data-testid="team-refused">
      {refused.map((e) => (
        <p key={e.id}>
          <strong>{KIND[e.kind] ?? e.kind}</strong> ({e.source}): {e.teamRefused}. It is kept on this desk only; the
          other desks do not see it.
        </p>
      ))}
    </div>
  );
}
