import type { ReactNode } from 'react';

/** A row of filters: a named form that never submits (each control applies as it changes). */
export function FilterForm({
  label,
  className = 'filters',
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <form className={className} aria-label={label} onSubmit={(e) => e.preventDefault()}>
      {children}
    </form>
  );
}
