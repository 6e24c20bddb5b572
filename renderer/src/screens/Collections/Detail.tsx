// One collection: what was asked, what each source said, its flags, and the whole event timeline
// (source, time, status, whether the signature verified, the raw payload as received).
import { useEffect, useRef, type ReactNode } from 'react';
import type { CollectionRow, EventRow } from '../../../../main/ipc/contract/collections.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { Flags, SignatureBeingChecked, StatusBadge, flagLabel } from '../../ui/StatusBadge.js';
import { statusLabel } from '../../ui/status.js';
import { SourcesAgree, sourcesText } from './Sources.js';
import { cardLine } from '../TakePayment/Receipt.js';
import { useWords, type Say } from '../../words/index.js';
import type { MessageId } from '../../../../main/words/words.shared.js';

const KINDS = [
  'intent_saved',
  'initialize_accepted',
  'initialize_rejected',
  'initialize_unknown',
  'initialize_exists',
  'outcome',
  'final_status_changed',
  'window_closed',
  'bad_signature',
  'resolution',
  'manual_status',
] as const;

/** An event's kind in words; one this version does not know is named as stored. */
function kindWord(t: Say['t'], kind: string): string {
  return (KINDS as readonly string[]).includes(kind) ? t(`collections.kind.${kind as (typeof KINDS)[number]}`) : kind;
}

const SOURCES = ['intent', 'initiate', 'redirect', 'callback', 'import', 'manual'] as const;
function sourceWord(t: Say['t'], source: string): string {
  return (SOURCES as readonly string[]).includes(source)
    ? t(`collections.source.${source as (typeof SOURCES)[number]}`)
    : source;
}

const SIGNATURE: Record<string, { text: MessageId; tone: string }> = {
  verified: { text: 'collections.sig.verified', tone: 'ok' },
  invalid: { text: 'collections.sig.invalid', tone: 'err' },
  missing: { text: 'collections.sig.missing', tone: 'warn' },
  not_applicable: { text: 'collections.sig.not_applicable', tone: 'off' },
};

const FLAG_HELP: Record<string, MessageId> = {
  final_status_changed: 'collections.help.final_status_changed',
  amount_mismatch: 'collections.help.amount_mismatch',
  currency_mismatch: 'collections.help.currency_mismatch',
  bad_signature: 'collections.help.bad_signature',
  sources_disagree: 'collections.help.sources_disagree',
};

const b = (chunks: ReactNode[]) => <strong>{chunks}</strong>;

function TimelineItem({ e }: { e: EventRow }) {
  const { t, f } = useWords();
  const sig = Object.hasOwn(SIGNATURE, e.signature) ? SIGNATURE[e.signature]! : undefined;
  const at = new Date(e.receivedAt);
  return (
    <li className={`timeline-item source-${e.source}`}>
      <div className="timeline-head">
        <time dateTime={at.toISOString()}>{f.dateTime(at)}</time>
        <span className="badge source">{sourceWord(t, e.source)}</span>
        <span className="strong">{kindWord(t, e.kind)}</span>
        {e.status && <StatusBadge status={e.status} />}
        {e.signatureBeingChecked ? (
          <SignatureBeingChecked checking />
        ) : (
          <span className={`badge ${sig?.tone ?? 'off'}`}>{sig ? t(sig.text) : e.signature}</span>
        )}
        {e.amountMinor !== null && e.currency && <Money minor={e.amountMinor} currency={e.currency} />}
      </div>
      {/* The note is the event's own record, kept as it was written: evidence, not words of this version. */}
      {e.note && (
        <p className="timeline-note" translate="no">
          {e.note}
        </p>
      )}
      {e.actor && <p className="timeline-note">{t('collections.by', { actor: e.actor })}</p>}
      {e.teamRefused && (
        <p className="timeline-note team-refused" role="note" translate="no">
          {e.teamRefused}
        </p>
      )}
      {e.payload && (
        <details>
          <summary>
            {t(e.source === 'callback' || e.source === 'import' ? 'collections.rawCallback' : 'collections.raw')}
          </summary>
          {/* Exactly as received: it is evidence, so it is never parsed and re-serialised. */}
          <pre
            className="payload mono"
            data-testid="raw-payload"
            tabIndex={0}
            role="region"
            aria-label={t('collections.payloadLabel')}
            translate="no"
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
  const { t } = useWords();
  return (
    <section className="collection-detail" aria-labelledby="detail-title">
      <div className="row detail-bar">
        <button type="button" onClick={onBack}>
          {t('collections.back')}
        </button>
      </div>
      <ErrorBanner error={q.error} title={t('collections.detailFailed')} />
      {q.loading && <Loading text={t('collections.detailLoading')} />}
      {c && (
        <>
          <div className="panel">
            <h2 id="detail-title" ref={title} tabIndex={-1}>
              <span className="mono" translate="no">
                {c.merchantReference}
              </span>{' '}
              <StatusBadge status={c.status} /> <SignatureBeingChecked checking={c.signatureBeingChecked} />
            </h2>
            <CollectionFacts c={c} />
            <FlagHelp c={c} />
            <NotAcceptedByTeam refused={events.filter((e) => e.teamRefused)} />
          </div>
          <div className="panel">
            <h2>{t('collections.timeline')}</h2>
            <ol className="timeline" aria-label={t('collections.timelineLabel')}>
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
  const { t, rich, f } = useWords();
  return (
    <dl className="kv">
      <dt>{t('collections.d.amount')}</dt>
      <dd>
        <Money minor={c.amountMinor} currency={c.currency} />
        {c.chargeCustomer ? ` ${t('collections.d.customerPays')}` : ''}
      </dd>
      <dt>{t('collections.d.description')}</dt>
      <dd translate="no">{c.description}</dd>
      <dt>{t('collections.d.created')}</dt>
      <dd>
        {rich('collections.d.createdBy', {
          createdAt: <time dateTime={new Date(c.createdAt).toISOString()}>{f.dateTime(c.createdAt)}</time>,
          operator: c.operator,
        })}
      </dd>
      <dt>{t('collections.d.customer')}</dt>
      <dd translate="no">
        {c.customerName ?? '—'}
        {c.customerEmail ? ` <${c.customerEmail}>` : ''}
      </dd>
      <dt>{t('collections.d.card')}</dt>
      <dd>{c.cardLast4 ? cardLine(t, c.cardBrand, c.cardLast4) : '—'}</dd>
      <dt>{t('collections.d.serviceReference')}</dt>
      <dd className="mono" translate="no">
        {c.internalReference ?? '—'}
      </dd>
      <dt>{t('collections.d.status')}</dt>
      <dd>
        {statusLabel(t, c.status)}
        {/* The service's own message (or the redirect's status as it came): said as it is. */}
        {c.statusMessage ? <span translate="no">{` — ${c.statusMessage}`}</span> : ''}
      </dd>
      <dt>{t('collections.d.sources')}</dt>
      <dd>
        <SourcesAgree c={c} /> {sourcesText(t, c)}
      </dd>
      <dt>{t('collections.d.mayChange')}</dt>
      <dd>{t(c.allowFinalStatusChange ? 'collections.d.yes' : 'collections.d.no')}</dd>
      <dt>{t('collections.d.flags')}</dt>
      <dd>
        <Flags flags={c.flags} />
      </dd>
    </dl>
  );
}

/** What each flag means. */
function FlagHelp({ c }: { c: CollectionRow }) {
  const { t, rich } = useWords();
  if (c.flags.length === 0) return null;
  return (
    <ul className="flag-help" aria-label={t('collections.flagsMean')}>
      {c.flags.map((f) => (
        <li key={f}>
          {rich('collections.flagIs', {
            b,
            flag: flagLabel(t, f),
            help: Object.hasOwn(FLAG_HELP, f) ? t(FLAG_HELP[f]!) : '',
          })}
          {f === 'final_status_changed' && c.finalChanges > 0
            ? ` ${t('collections.help.changes', { n: c.finalChanges })}`
            : ''}
        </li>
      ))}
    </ul>
  );
}

/** Events the team database refused: kept on this desk only, and why. */
function NotAcceptedByTeam({ refused }: { refused: EventRow[] }) {
  const { t, rich } = useWords();
  if (refused.length === 0) return null;
  return (
    <div className="team-refused" role="alert" data-testid="team-refused">
      {refused.map((e) => (
        <p key={e.id}>
          {rich('collections.refused', {
            b,
            kind: kindWord(t, e.kind),
            source: sourceWord(t, e.source),
            reason: <span translate="no">{e.teamRefused}</span>,
          })}
        </p>
      ))}
    </div>
  );
}
