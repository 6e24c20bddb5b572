// What the agent tells the caller: the payment's state, kept current from main (redirect, callbacks,
// imports push 'collections.updated' / 'callbacks.ingested'), with a printable receipt once final.
// An UNKNOWN outcome offers one explicit action: send again with the SAME reference (the card is typed
// again; nothing is retried on its own). It shows the payment of `reference` and nothing else: an answer
// read for another reference (the one shown before) is never shown while this one's is read.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type {
  ChargeOutcome,
  ChargeResponse,
  CollectionRow,
  EventRow,
} from '../../../../main/ipc/contract/collections.js';
import { validateCardForm } from '../../../../main/collections/card-input.shared.js';
import { DeskError, invoke, on } from '../../desk.js';
import { useAppStatusSelect, useDeskQuery, useNow } from '../../hooks.js';
import { ErrorBanner, Loading, Money } from '../../ui/index.js';
import { StatusBadge, statusLabel } from '../../ui/StatusBadge.js';
import { CardSection, EMPTY_CARD, cardRequest, wipe, type CardState } from './CardSection.js';
import { formatDateTime } from '../../ui/format.js';
import { newOperationId } from './useCharge.js';

const HEADLINE: Record<string, string> = {
  COMPLETED: 'Approved',
  FAILED: 'Declined',
  CANCELLED: 'Cancelled',
};

function reason(c: CollectionRow): string | null {
  const m = c.statusMessage;
  if (!m || /^redirect:/i.test(m)) return null;
  return m;
}

export function brandName(b: string | null): string {
  if (!b) return 'Card';
  return b === 'mastercard' ? 'Mastercard' : b === 'amex' ? 'American Express' : b.charAt(0).toUpperCase() + b.slice(1);
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

export function Receipt({ c }: { c: CollectionRow }) {
  const when = new Date(c.statusChangedAt);
  return (
    <section className="receipt panel" aria-label="Receipt">
      <h2>Payment receipt</h2>
      <p className={`receipt-status status-${c.status.toLowerCase()}`}>{HEADLINE[c.status] ?? statusLabel(c.status)}</p>
      <dl className="kv">
        <dt>Amount</dt>
        <dd>
          <Money minor={c.amountMinor} currency={c.currency} />
        </dd>
        <dt>Description</dt>
        <dd>{c.description}</dd>
        <dt>Reference</dt>
        <dd className="mono">{c.merchantReference}</dd>
        {c.internalReference && (
          <>
            <dt>Service reference</dt>
            <dd className="mono">{c.internalReference}</dd>
          </>
        )}
        <dt>Card</dt>
        <dd>
          {brandName(c.cardBrand)} •••• {c.cardLast4 ?? '????'}
        </dd>
        {c.customerName && (
          <>
            <dt>Customer</dt>
            <dd>{c.customerName}</dd>
          </>
        )}
        <dt>Date</dt>
        <dd>
          <time dateTime={when.toISOString()}>{formatDateTime(when)}</time>
        </dd>
        <dt>Taken by</dt>
        <dd>{c.operator}</dd>
      </dl>
    </section>
  );
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
  const shown = c !== undefined && c !== null;
  useEffect(() => {
    if (shown) title.current?.focus({ preventScroll: true });
  }, [shown]);

  if (!c) {
    return (
      <>
        <ErrorBanner error={q.error} title="Could not read the payment" />
        {q.loading && <Loading what="the payment" />}
      </>
    );
  }

  const final = HEADLINE[c.status];
  const changed = c.flags.includes('final_status_changed') || history.length > 1;
  return (
    <div className="payment-result">
      <ErrorBanner error={q.error} title="Could not refresh the payment" />
      <div
        className={`outcome-panel panel outcome-${c.status.toLowerCase()}`}
        role="status"
        aria-live="polite"
        data-testid="payment-outcome"
        data-in-flight={inFlight ? 'true' : undefined}
      >
        <h2 className="outcome-title" ref={title} tabIndex={-1}>
          {final ??
            (c.status === 'PENDING'
              ? outcome.kind === 'window_closed'
                ? 'Awaiting outcome'
                : "Waiting for the customer's payment"
              : c.status === 'UNKNOWN' || c.status === 'INTENT'
                ? 'Outcome unknown'
                : statusLabel(c.status))}
        </h2>
        <p>
          <Money minor={c.amountMinor} currency={c.currency} /> · reference{' '}
          <span className="mono">{c.merchantReference}</span> · <StatusBadge status={c.status} />
        </p>
        {final && reason(c) && <p className="outcome-reason">{reason(c)}</p>}
        {c.status === 'PENDING' && outcome.kind === 'window_closed' && (
          <p>
            The payment window was closed before the payment finished. It stays pending; this updates by itself when the
            service's callback arrives.
          </p>
        )}
        {c.status === 'PENDING' && outcome.kind === 'unverified' && <p className="warn-text">{outcome.message}</p>}
        {c.status === 'PENDING' && outcome.kind === 'pending' && <p>{outcome.message}</p>}
        {final && outcome.kind === 'unverified' && <p>The callback confirmed it.</p>}
        {changed && (
          <p className="warn-text" data-testid="final-status-changed">
            The final status changed after it was reported
            {history.length > 1
              ? `: was ${history.slice(0, -1).map(statusLabel).join(', then ')}, now ${statusLabel(c.status)}`
              : ''}
            . It is flagged for review in Collections.
          </p>
        )}
      </div>
      {(c.status === 'UNKNOWN' || c.status === 'INTENT') && !inFlight && onSettled && onError && (
        <Resend
          c={c}
          message={outcome.kind === 'unknown' ? outcome.message : null}
          onSettled={onSettled}
          onError={onError}
        />
      )}
      {final && <Receipt c={c} />}
      <div className="row no-print">
        {final && (
          <button type="button" onClick={() => window.print()}>
            Print receipt
          </button>
        )}
        {!inFlight && onNew && (
          <button type="button" className={final ? 'primary' : undefined} onClick={onNew}>
            New payment
          </button>
        )}
        {inFlight && final && (
          <span className="as-of">The payment window is still open; it closes when the customer's page finishes.</span>
        )}
      </div>
    </div>
  );
}

function Resend({
  c,
  message,
  onSettled,
  onError,
}: {
  c: CollectionRow;
  message: string | null;
  onSettled: (r: ChargeResponse) => void;
  onError: (e: unknown) => void;
}) {
  const [card, setCard] = useState<CardState>(EMPTY_CARD);
  const [submitted, setSubmitted] = useState(false);
  const [sending, setSending] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<DeskError>();
  // As the charge form: a team desk keeps the typed card until main says it was sent (a claim the team
  // database refused sends nothing), a solo desk clears it as it hands the request over.
  const keepCardUntilSent = useAppStatusSelect((s) => s?.profile === 'team');

  const now = useNow(60_000);
  const errors = useMemo(() => {
    const all = validateCardForm(
      { amount: '1', currency: 'UGX', description: 'card check only', card: cardRequest(card) },
      {
        now,
        limits: {
          minMinor: 0,
          maxMinor: Number.MAX_SAFE_INTEGER,
          maxDailyMinor: Number.MAX_SAFE_INTEGER,
          collectedTodayMinor: 0,
          exponent: 0,
        },
      },
    );
    return Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('card.')));
  }, [card, now]);
  const errorFor = (name: string) => serverErrors[name] ?? (submitted ? errors[name] : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    setError(undefined);
    if (Object.keys(errors).length) return;
    const operationId = newOperationId();
    const request = { reference: c.merchantReference, card: cardRequest(card), operationId };
    let sent = false;
    const forget = () => {
      sent = true;
      setCard(EMPTY_CARD);
    };
    if (!keepCardUntilSent) forget();
    // Main's progress of this re-send: the card is on its way.
    const off = on('payments.progress', (p) => {
      if (p.operationId === operationId && !sent) forget();
    });
    setSubmitted(false);
    setServerErrors({});
    setSending(true);
    try {
      const answer = await invoke('payments.resend', request);
      if (!sent) forget();
      onSettled(answer);
    } catch (err) {
      if (err instanceof DeskError && (err.fields || err.field?.startsWith('card'))) {
        setServerErrors(err.fields ?? { [err.field!]: err.message });
        setError(err);
      } else if (!sent && err instanceof DeskError) {
        setError(err); // refused before anything was sent (a team desk): said here, the card still typed
      } else onError(err);
    } finally {
      off();
      wipe(request.card);
      setSending(false);
    }
  };

  return (
    <form className="panel resend" aria-label="Send again" onSubmit={(e) => void submit(e)} noValidate>
      <p>
        {message ??
          'We cannot tell whether the service created this payment. Do not start a new payment: send it again with the same reference, and the service tells us if it already has it.'}
      </p>
      <p className="field-hint">
        Type the same card again ({c.cardLast4 ? `•••• ${c.cardLast4}` : 'the card used'}); nothing is sent until you
        press the button.
      </p>
      <ErrorBanner error={error} />
      <CardSection
        card={card}
        onChange={(p) => setCard((x) => ({ ...x, ...p }))}
        errorFor={errorFor}
        disabled={sending}
      />
      <button type="submit" className="primary" disabled={sending}>
        Send again with the same reference
      </button>
      {sending && (
        <span role="status" className="as-of">
          {' '}
          Sending…
        </span>
      )}
    </form>
  );
}
