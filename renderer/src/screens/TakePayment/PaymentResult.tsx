// What the agent tells the caller: the payment's state, kept current from main (redirect, callbacks,
// imports push 'collections.updated' / 'callbacks.ingested'), with a printable receipt once final, and
// for an UNKNOWN outcome the re-send with the same reference (Resend.tsx). It shows the payment of
// `reference` and nothing else: an answer read for another reference (the one shown before) is never
// shown while this one's is read.
import { useEffect, useMemo, useRef, type RefObject } from 'react';
import type {
  ChargeOutcome,
  ChargeResponse,
  CollectionRow,
  EventRow,
} from '../../../../main/ipc/contract/collections.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { StatusBadge } from '../../ui/StatusBadge.js';
import { statusLabel } from '../../ui/status.js';
import { useWords, type Say } from '../../words/index.js';
import { Receipt, finalHeadline } from './Receipt.js';
import { Resend } from './Resend.js';

function reason(c: CollectionRow): string | null {
  const m = c.statusMessage;
  if (!m || /^redirect:/i.test(m)) return null;
  return m;
}

/** Final statuses in the order they were reported (for "was X, now Y"). */
function finalHistory(events: EventRow[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.signature !== 'verified' && e.source !== 'manual') continue;
    if (e.status && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(e.status) && out[out.length - 1] !== e.status)
      out.push(e.status);
  }
  return out;
}

/** The outcome's heading: the final word, or what the payment is waiting for. */
function outcomeTitle(t: Say['t'], c: CollectionRow, outcome: ChargeOutcome): string {
  const final = finalHeadline(t, c.status);
  if (final) return final;
  if (c.status === 'PENDING')
    return t(outcome.kind === 'window_closed' ? 'payment.awaiting' : 'payment.waitingCustomer');
  return c.status === 'UNKNOWN' || c.status === 'INTENT' ? t('payment.outcomeUnknown') : statusLabel(t, c.status);
}

export function PaymentResult({
  reference,
  outcome,
  onSettled,
  onError,
  onNew,
  inFlight = false,
}: {
  reference: string;
  outcome: ChargeOutcome;
  onSettled?: (r: ChargeResponse) => void;
  onError?: (e: unknown) => void;
  onNew?: () => void;
  /** The charge call has not answered yet (the payment window is open). */
  inFlight?: boolean;
}) {
  const q = useDeskQuery(
    'collections.get',
    { reference },
    { refreshOn: ['collections.updated', 'callbacks.ingested'], shows: (t) => t.reference === reference },
  );
  // Only this reference's own answer: while it is read, an earlier one (another payment) is not shown.
  const own = q.data?.collection.merchantReference === reference ? q.data : undefined;
  const c = own?.collection;
  const events = useMemo(() => own?.events ?? [], [own]);
  const history = useMemo(() => finalHistory(events), [events]);
  // After Charge the form is gone; without this, focus falls to the page body. Land on the result heading.
  const title = useRef<HTMLHeadingElement>(null);
  const { t, say } = useWords();
  const shown = c !== undefined && c !== null;
  useEffect(() => {
    if (shown) title.current?.focus({ preventScroll: true });
  }, [shown]);

  if (!c) {
    return (
      <>
        <ErrorBanner error={q.error} title={t('payment.readFailed')} />
        {q.loading && <Loading text={t('payment.loading')} />}
      </>
    );
  }

  const final = finalHeadline(t, c.status) !== undefined;
  return (
    <div className="payment-result">
      <ErrorBanner error={q.error} title={t('payment.refreshFailed')} />
      <OutcomePanel c={c} outcome={outcome} history={history} inFlight={inFlight} title={title} />
      {(c.status === 'UNKNOWN' || c.status === 'INTENT') && !inFlight && onSettled && onError && (
        <Resend
          c={c}
          message={outcome.kind === 'unknown' ? say(outcome.words, outcome.message) : null}
          onSettled={onSettled}
          onError={onError}
        />
      )}
      {final && <Receipt c={c} />}
      <div className="row no-print">
        {final && (
          <button type="button" onClick={() => window.print()}>
            {t('payment.print')}
          </button>
        )}
        {!inFlight && onNew && (
          <button type="button" className={final ? 'primary' : undefined} onClick={onNew}>
            {t('payment.new')}
          </button>
        )}
        {inFlight && final && <span className="as-of">{t('payment.windowOpen')}</span>}
      </div>
    </div>
  );
}

/** The state as it stands, announced as it changes: the heading, amount and reference, and what to say. */
function OutcomePanel({
  c,
  outcome,
  history,
  inFlight,
  title,
}: {
  c: CollectionRow;
  outcome: ChargeOutcome;
  /** Final statuses as reported, oldest first. */
  history: string[];
  inFlight: boolean;
  title: RefObject<HTMLHeadingElement | null>;
}) {
  const { t, rich, say } = useWords();
  const final = finalHeadline(t, c.status) !== undefined;
  const changed = c.flags.includes('final_status_changed') || history.length > 1;
  const pending = c.status === 'PENDING';
  return (
    <div
      className={`outcome-panel panel outcome-${c.status.toLowerCase()}`}
      role="status"
      aria-live="polite"
      data-testid="payment-outcome"
      data-in-flight={inFlight ? 'true' : undefined}
    >
      <h2 className="outcome-title" ref={title} tabIndex={-1}>
        {outcomeTitle(t, c, outcome)}
      </h2>
      <p>
        {rich('payment.summary', {
          amount: <Money minor={c.amountMinor} currency={c.currency} />,
          reference: (
            <span className="mono" translate="no">
              {c.merchantReference}
            </span>
          ),
          status: <StatusBadge status={c.status} />,
        })}
      </p>
      {final && reason(c) && (
        // The service's own words for the outcome ("insufficient funds"): said as it sent them.
        <p className="outcome-reason" translate="no">
          {reason(c)}
        </p>
      )}
      {pending && outcome.kind === 'window_closed' && <p>{t('payment.closedPending')}</p>}
      {pending && outcome.kind === 'unverified' && <p className="warn-text">{say(outcome.words, outcome.message)}</p>}
      {pending && outcome.kind === 'pending' && <p>{say(outcome.words, outcome.message)}</p>}
      {final && outcome.kind === 'unverified' && <p>{t('payment.callbackConfirmed')}</p>}
      {changed && (
        <p className="warn-text" data-testid="final-status-changed">
          {history.length > 1
            ? t('payment.changedFrom', {
                was: history
                  .slice(0, -1)
                  .map((s) => statusLabel(t, s))
                  .reduce((first, next) => t('payment.then', { first, next })),
                now: statusLabel(t, c.status),
              })
            : t('payment.changed')}
        </p>
      )}
    </div>
  );
}
