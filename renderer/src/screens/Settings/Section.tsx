// What every Settings section shares: its titled panel, the Save row, the save action and field errors.
import { useState, type ReactNode } from 'react';
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import type { DeskError } from '../../desk.js';
import { useDeskAction } from '../../hooks.js';
import { fieldErrorText } from '../../desk.js';
import { useWords, type Say } from '../../words/index.js';

export type SectionProps = { view: SettingsView; reload: () => Promise<void> };

/** Field errors of a failed save: error.fields keyed by the setting path (e.g. "pollIntervals.balancesMs"). */
export function fieldError(say: Say['say'], error: DeskError | undefined, name: string): string | undefined {
  return fieldErrorText(say, error, name);
}

/** Every section ends the same way: its Save button, and "Saved" once the change is stored. */
export function SaveRow({ label, save }: { label: string; save: { pending: boolean; saved: boolean } }) {
  const { t } = useWords();
  return (
    <div className="row save-row">
      <button type="submit" className="primary" disabled={save.pending}>
        {label}
      </button>
      {save.saved && (
        <span role="status" className="badge ok">
          {t('settings.saved')}
        </span>
      )}
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `settings-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section className="panel settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function useSave() {
  const a = useDeskAction('settings.update');
  const [saved, setSaved] = useState(false);
  return {
    ...a,
    saved,
    save: async (patch: Parameters<typeof a.run>[0], after: () => Promise<void>) => {
      setSaved(false);
      const r = await a.run(patch);
      if (r) {
        setSaved(true);
        await after();
      }
    },
  };
}
