import type { ReactNode } from 'react';
import { errorText } from '../desk.js';
import { asWords } from '../../../main/words/words.shared.js';
import { useWords } from '../words/index.js';
import type { MessageId } from '../../../main/words/words.shared.js';

/** The kinds of error that come with a hint of what to do. */
const HINTS: Record<string, MessageId> = {
  authentication: 'ui.hint.authentication',
  not_configured: 'ui.hint.not_configured',
  network: 'ui.hint.network',
  unavailable: 'ui.hint.unavailable',
  rate_limited: 'ui.hint.rate_limited',
  unreadable: 'ui.hint.unreadable',
  keychain_unavailable: 'ui.hint.keychain_unavailable',
};

/**
 * A readable error, announced to screen readers, with an optional action (e.g. Retry). `error` is a
 * DeskError or words (said in the person's language), or a text already in it.
 */
export function ErrorBanner({ error, title, action }: { error: unknown; title?: string; action?: ReactNode }) {
  const { t, say } = useWords();
  if (!error) return null;
  const kind = (error as { kind?: string }).kind;
  const hint = kind && Object.hasOwn(HINTS, kind) ? HINTS[kind] : undefined;
  return (
    <div className="banner error" role="alert">
      <div>
        {title && <strong>{t('ui.error.titled', { title })} </strong>}
        {typeof error === 'string' ? error : asWords(error) ? say(error) : errorText(say, error)}
        {hint && <span className="hint"> {t(hint)}</span>}
      </div>
      {action}
    </div>
  );
}

export function WarningBanner({ children }: { children: ReactNode }) {
  return (
    <div className="banner warning" role="status">
      {children}
    </div>
  );
}
