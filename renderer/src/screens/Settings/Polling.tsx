// Polling: how often balances and payment options are fetched, and when shown data counts as stale.
import { useState } from 'react';
import { Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { useWords } from '../../words/index.js';

export function PollingSection({ view, reload }: SectionProps) {
  const [balancesS, setBalancesS] = useState(String(view.pollIntervals.balancesMs / 1000));
  const [providersMin, setProvidersMin] = useState(String(view.pollIntervals.providersMs / 60000));
  const [staleMin, setStaleMin] = useState(String(view.staleAfterMs / 60000));
  const s = useSave();
  const num = (v: string, mult: number) => Math.round(Number(v.replace(',', '.')) * mult);
  const { t, say } = useWords();
  return (
    <Section title={t('settings.polling')}>
      <form
        aria-label={t('settings.polling')}
        onSubmit={(e) => {
          e.preventDefault();
          void s.save(
            {
              pollIntervals: { balancesMs: num(balancesS, 1000), providersMs: num(providersMin, 60000) },
              staleAfterMs: num(staleMin, 60000),
            },
            reload,
          );
        }}
      >
        <div className="row">
          <Field label={t('settings.polling.balances')} error={fieldError(say, s.error, 'pollIntervals.balancesMs')}>
            <input
              name="balancesSeconds"
              inputMode="decimal"
              value={balancesS}
              onChange={(e) => setBalancesS(e.target.value)}
            />
          </Field>
          <Field label={t('settings.polling.options')} error={fieldError(say, s.error, 'pollIntervals.providersMs')}>
            <input
              name="providersMinutes"
              inputMode="decimal"
              value={providersMin}
              onChange={(e) => setProvidersMin(e.target.value)}
            />
          </Field>
          <Field label={t('settings.polling.stale')} error={fieldError(say, s.error, 'staleAfterMs')}>
            <input
              name="staleMinutes"
              inputMode="decimal"
              value={staleMin}
              onChange={(e) => setStaleMin(e.target.value)}
            />
          </Field>
        </div>
        <SaveRow label={t('settings.polling.save')} save={s} />
      </form>
    </Section>
  );
}
