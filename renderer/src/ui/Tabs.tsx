// Accessible tabs (WAI-ARIA tabs pattern): arrow keys, Home/End move between tabs; only the selected
// panel is rendered.
import { useId, useRef, type ReactNode } from 'react';

export interface TabDef {
  id: string;
  label: ReactNode;
  /** Accessible name when label is not plain text. */
  name?: string;
}

export function Tabs({
  label,
  tabs,
  selected,
  onSelect,
  children,
}: {
  label: string;
  tabs: TabDef[];
  selected: string;
  onSelect: (id: string) => void;
  children: ReactNode;
}) {
  const base = useId();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const index = Math.max(
    0,
    tabs.findIndex((t) => t.id === selected),
  );
  const move = (i: number) => {
    const n = (i + tabs.length) % tabs.length;
    onSelect(tabs[n]!.id);
    refs.current[n]?.focus();
  };
  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} className="tablist">
        {tabs.map((t, i) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={i === index}
            aria-controls={`${base}-panel`}
            aria-label={t.name}
            tabIndex={i === index ? 0 : -1}
            className={i === index ? 'tab selected' : 'tab'}
            onClick={() => onSelect(t.id)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight') move(i + 1);
              else if (e.key === 'ArrowLeft') move(i - 1);
              else if (e.key === 'Home') move(0);
              else if (e.key === 'End') move(tabs.length - 1);
              else return;
              e.preventDefault();
            }}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${base}-panel`}
        aria-labelledby={`${base}-tab-${tabs[index]?.id ?? ''}`}
        className="tabpanel"
      >
        {children}
      </div>
    </div>
  );
}
