// Connection: the profile (embedded, sandbox, live) and the service's base URL.
import { useState, type FormEvent } from 'react';
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';

export function ConnectionSection({ view, reload }: SectionProps) {
  const [profile, setProfile] = useState(view.profile);
  const [baseUrl, setBaseUrl] = useState(view.baseUrl ?? '');
  const s = useSave();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void s.save({ profile, baseUrl: baseUrl.trim() ? baseUrl.trim() : null }, reload);
  };
  return (
    <Section title="Connection">
      <form onSubmit={submit} aria-label="Connection">
        <Field
          label="Profile"
          error={fieldError(s.error, 'profile')}
          hint="Embedded runs a local sandbox with its own keys; sandbox and live use the keys below."
        >
          <select
            name="profile"
            value={profile}
            onChange={(e) => setProfile(e.target.value as SettingsView['profile'])}
          >
            <option value="embedded">embedded (local sandbox)</option>
            <option value="sandbox">sandbox</option>
            <option value="live">live</option>
          </select>
        </Field>
        <Field
          label="Base URL"
          error={fieldError(s.error, 'baseUrl')}
          hint={
            profile === 'embedded'
              ? `Not used by the embedded profile${view.embeddedBaseUrl ? ` (its sandbox runs at ${view.embeddedBaseUrl})` : ''}.`
              : 'e.g. https://api.example.com'
          }
        >
          <input
            name="baseUrl"
            type="url"
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="https://…"
            spellCheck={false}
          />
        </Field>
        <ErrorBanner error={s.error && !s.error.fields ? s.error : undefined} />
        <SaveRow label="Save connection" save={s} />
      </form>
    </Section>
  );
}
