// Connection: the profile (embedded, sandbox, live, team), the service's base URL and, for a team desk,
// the team database (never with a password: each operator signs in with their own), who signs in, and
// how the connection to it is protected (TLS mode; the CA certificate is chosen below, read in main).
import { useState, type FormEvent } from 'react';
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import type { DeskError } from '../../desk.js';
import { ErrorBanner, Field } from '../../ui/index.js';
import { SaveRow, Section, fieldError, useSave, type SectionProps } from './Section.js';
import { SSL_MODE_CHOICES, sslModeSetting } from './team-tls.js';
import { TeamCa } from './TeamCa.js';

/** A team desk's connection as typed: the database, the operator who signs in, the TLS mode ('' by host). */
interface TeamConnection {
  teamDatabaseUrl: string;
  teamLogin: string;
  teamSslMode: string;
}

const orNull = (v: string) => (v.trim() ? v.trim() : null);

export function ConnectionSection({ view, reload }: SectionProps) {
  const [profile, setProfile] = useState(view.profile);
  const [baseUrl, setBaseUrl] = useState(view.baseUrl ?? '');
  const [team, setTeam] = useState<TeamConnection>({
    teamDatabaseUrl: view.teamDatabaseUrl ?? '',
    teamLogin: view.teamLogin ?? '',
    teamSslMode: view.teamSslMode ?? '',
  });
  const s = useSave();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void s.save(
      {
        profile,
        baseUrl: orNull(baseUrl),
        ...(profile === 'team'
          ? {
              teamDatabaseUrl: orNull(team.teamDatabaseUrl),
              teamLogin: orNull(team.teamLogin),
              teamSslMode: sslModeSetting(team.teamSslMode),
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
          <TeamConnectionFields
            values={team}
            onChange={(patch) => setTeam((t) => ({ ...t, ...patch }))}
            error={s.error}
            transport={view.teamTransport}
          />
        )}
        <ErrorBanner error={s.error && !s.error.fields ? s.error : undefined} />
        <SaveRow label="Save connection" save={s} />
      </form>
      {view.profile === 'team' && <TeamCa view={view} reload={reload} />}
    </Section>
  );
}

/** The team database, the operator login and TLS to it, with what the saved TLS does now. */
function TeamConnectionFields({
  values,
  onChange,
  error,
  transport,
}: {
  values: TeamConnection;
  onChange: (patch: Partial<TeamConnection>) => void;
  error: DeskError | undefined;
  transport: SettingsView['teamTransport'];
}) {
  return (
    <>
      <Field
        label="Team database"
        error={fieldError(error, 'teamDatabaseUrl')}
        hint="postgres://HOST:PORT/DATABASE, without a password: each operator signs in with their own. Saving another database signs this desktop out; the operator signs in to the new one."
      >
        <input
          name="teamDatabaseUrl"
          type="url"
          value={values.teamDatabaseUrl}
          onChange={(e) => onChange({ teamDatabaseUrl: e.target.value })}
          placeholder="postgres://…"
          spellCheck={false}
        />
      </Field>
      <Field
        label="Operator login"
        error={fieldError(error, 'teamLogin')}
        hint="Who signs in on this desktop; the app asks for their password when it starts. Saving another login signs this desktop out until that operator signs in."
      >
        <input
          name="teamLogin"
          value={values.teamLogin}
          onChange={(e) => onChange({ teamLogin: e.target.value })}
          autoComplete="username"
          spellCheck={false}
        />
      </Field>
      <Field
        label="TLS to the team database"
        error={fieldError(error, 'teamSslMode') ?? fieldError(error, 'teamSslCa')}
        hint={
          transport?.warning ? (
            <span className="warn-text">Now: {transport.warning}.</span>
          ) : transport ? (
            `Now: ${transport.mode}.`
          ) : undefined
        }
      >
        <select
          name="teamSslMode"
          value={values.teamSslMode}
          onChange={(e) => onChange({ teamSslMode: e.target.value })}
        >
          {SSL_MODE_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}
