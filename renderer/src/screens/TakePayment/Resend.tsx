// An UNKNOWN outcome's one explicit action: send again with the SAME reference. The card is typed again
// (nothing is retried on its own) and, as on the charge form, a team desk keeps the typed card until main
// says it was sent (a claim the team database refused sends nothing), a solo desk clears it as it hands
// the request over.
import { useMemo, useState, type FormEvent } from 'react';
import type { ChargeResponse, CollectionRow } from '../../../../main/ipc/contract/collections.js';
import { validateCardForm } from '../../../../main/collections/card-input.shared.js';
import { DeskError, invoke, on, problemText } from '../../desk.js';
import { useWords } from '../../words/index.js';
import type { Words } from '../../../../main/words/words.shared.js';
import { useAppStatusSelect, useNow } from '../../hooks.js';
import { ErrorBanner } from '../../ui/index.js';
import { CardSection, EMPTY_CARD, cardRequest, wipe, type CardState } from './CardSection.js';
import { newOperationId } from './useCharge.js';

/** Only the card's own checks (the payment's were made when it was first sent). */
function useCardErrors(card: CardState): Record<string, Words> {
  const now = useNow(60_000);
  return useMemo(() => {
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
}

function useResend(c: CollectionRow, onSettled: (r: ChargeResponse) => void, onError: (e: unknown) => void) {
  const [card, setCard] = useState<CardState>(EMPTY_CARD);
  const [submitted, setSubmitted] = useState(false);
  const [sending, setSending] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, Words | string>>({});
  const { say } = useWords();
  const [error, setError] = useState<DeskError>();
  const keepCardUntilSent = useAppStatusSelect((s) => s?.profile === 'team');
  const errors = useCardErrors(card);

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
        setServerErrors(err.fieldWords ?? err.fields ?? { [err.field!]: err.words ?? err.message });
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

  return {
    card,
    edit: (p: Partial<CardState>) => setCard((x) => ({ ...x, ...p })),
    errorFor: (name: string) => problemText(say, serverErrors[name] ?? (submitted ? errors[name] : undefined)),
    sending,
    error,
    submit,
  };
}

export function Resend({
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
  const r = useResend(c, onSettled, onError);
  const { t } = useWords();
  return (
    <form className="panel resend" aria-label={t('payment.resend')} onSubmit={(e) => void r.submit(e)} noValidate>
      <p>{message ?? t('payment.resendWhy')}</p>
      <p className="field-hint">
        {c.cardLast4 ? t('payment.resendCard', { last4: c.cardLast4 }) : t('payment.resendAnyCard')}
      </p>
      <ErrorBanner error={r.error} />
      <CardSection card={r.card} onChange={r.edit} errorFor={r.errorFor} disabled={r.sending} />
      <button type="submit" className="primary" disabled={r.sending}>
        {t('payment.resendButton')}
      </button>
      {r.sending && (
        <span role="status" className="as-of">
          {' '}
          {t('payment.resending')}
        </span>
      )}
    </form>
  );
}
