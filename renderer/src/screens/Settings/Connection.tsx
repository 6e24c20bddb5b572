// Connection: the profile (embedded, sandbox, live, team), the service's base URL and, for a team desk,
// the team database (never with a password: each operator signs in with their own), who signs in, and
// how the connection to it is protected (TLS mode; the CA certificate is chosen below, read in main).
import { useState, type FormEvent } from 'react';
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { SSL_MODE_CHOICES, sslModeSetting } from './team-tls.js';
import { TeamCa } from './TeamCa.js';

export function ConnectionSection({ view, reload }: SectionProps) {
  const [profile, setProfile] = useState(view.profile);
  const [baseUrl, setBaseUrl] = useState(view.baseUrl ?? '');
  const [teamDatabaseUrl, setTeamDatabaseUrl] = useState(view.teamDatabaseUrl ?? '');
  const [teamLogin, setTeamLogin] = useState(view.teamLogin ?? '');
  const [teamSslMode, setTeamSslMode] = useState<string>(view.teamSslMode ?? '');
  const s = useSave();
  const orNull = (v: string) => (v.trim() ? v.trim() : null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void s.save(
      {
        profile,
        baseUrl: orNull(baseUrl),
        ...(profile === 'team'
          ? {
              teamDatabaseUrl: orNull(teamDatabaseUrl),
              teamLogin: orNull(teamLogin),
              teamSslMode: sslModeSetting(teamSslMode),
            }
          : {}),
      },
      reload,
    );
  };
  return (
    <Section title="Connection">
      <form onSubmit={submit} aria-label="Connection">
        <Field
          label="Profile"
          error={fieldError(s.error, 'profile')}
          hint="Embedded runs a local sandbox with its own keys; sandbox, live and team use the keys below. A team desk shares one record with the others through the team database."
        >
          <select
            name="profile"
            value={profile}
            onChange={(e) => setProfile(e.target.value as SettingsView['profile'])}
          >
            <option value="embedded">embedded (local sandbox)</option>
            <option value="sandbox">sandbox</option>
            <option value="live">live</option>
            <option value="team">team (shared team database)</option>
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
        {profile === 'team' && (
          <>
            <Field
              label="Team database"
              error={fieldError(s.error, 'teamDatabaseUrl')}
              hint="postgres://HOST:PORT/DATABASE, without a password: each operator signs in with their own. Saving another database signs this desktop out; the operator signs in to the new one."
            >
              <input
                name="teamDatabaseUrl"
                type="url"
                value={teamDatabaseUrl}
                onChange={(e) => setTeamDatabaseUrl(e.target.value)}
                placeholder="postgres://…"
                spellCheck={false}
              />
            </Field>
            <Field
              label="Operator login"
              error={fieldError(s.error, 'teamLogin')}
              hint="Who signs in on this desktop; the app asks for their password when it starts. Saving another login signs this desktop out until that operator signs in."
            >
              <input
                name="teamLogin"
                value={teamLogin}
                onChange={(e) => setTeamLogin(e.target.value)}
                autoComplete="username"
                spellCheck={false}
              />
            </Field>
            <Field
              label="TLS to the team database"
              error={fieldError(s.error, 'teamSslMode') ?? fieldError(s.error, 'teamSslCa')}
              hint={
                view.teamTransport?.warning ? (
                  <span className="warn-text">Now: {view.teamTransport.warning}.</span>
                ) : view.teamTransport ? (
                  `Now: ${view.teamTransport.mode}.`
                ) : undefined
              }
            >
              <select name="teamSslMode" value={teamSslMode} onChange={(e) => setTeamSslMode(e.target.value)}>
                {SSL_MODE_CHOICES.map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            </Field>
          </>
        )}
        <ErrorBanner error={s.error && !s.error.fields ? s.error : undefined} />
        <SaveRow label="Save connection" save={s} />
      </form>
      {view.profile === 'team' && <TeamCa view={view} reload={reload} />}
    </Section>
  );
}
