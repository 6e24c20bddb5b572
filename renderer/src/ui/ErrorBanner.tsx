import type { ReactNode } from 'react';
import { errorMessage } from '../desk.js';

const HINTS: Record<string, string> = {
  authentication: 'Check the keys in Settings.',
  not_configured: 'Set up the connection in Settings.',
  network: 'Check the network connection; the app keeps trying.',
  unavailable: 'The service is unavailable; the app keeps trying.',
  rate_limited: 'The service asked us to slow down; the app waits and tries again.',
  unreadable: 'The service sent an answer the app could not read; cached data is kept.',
  keychain_unavailable: 'The OS keychain is not available.',
};

/** A readable error, announced to screen readers, with an optional action (e.g. Retry). */
export function ErrorBanner({ error, title, action }: { error: unknown; title?: string; action?: ReactNode }) {
  if (!error) return null;
  const kind = (error as { kind?: string }).kind;
  const hint = kind ? HINTS[kind] : undefined;
  return (
    <div className="banner error" role="alert">
      <div>
        {title && <strong>{title}: </strong>}
        {typeof error === 'string' ? error : errorMessage(error)}
        {hint && <span className="hint"> {hint}</span>}
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
