import type { ReactNode } from 'react';

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state" role="status">
      <p className="empty-title">{title}</p>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

/** What is being loaded, said whole by the caller ("Loading balances…", "Chargement des soldes…"). */
export function Loading({ text }: { text: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      {text}
    </div>
  );
}
