import type { ReactNode } from 'react';

/** The frame of every screen: a heading (focused on navigation), optional actions, the body. */
export function Screen({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="screen" aria-labelledby="screen-title">
      <header className="screen-header">
        <h1 id="screen-title" tabIndex={-1}>
          {title}
        </h1>
        {actions && <div className="screen-actions">{actions}</div>}
      </header>
      <div className="screen-body">{children}</div>
    </section>
  );
}
