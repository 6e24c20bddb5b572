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
import { useWords } from '../../words/index.js';

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
  const { t, say } = useWords();
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
    <Section title={t('settings.connection')}>
      <form onSubmit={submit} aria-label={t('settings.connection')}>
        <Field
          label={t('settings.profile')}
          error={fieldError(say, s.error, 'profile')}
          hint={t('settings.profileHint')}
        >
          <select
            name="profile"
            value={profile}
            onChange={(e) => setProfile(e.target.value as SettingsView['profile'])}
          >
            <option value="embedded">{t('settings.profile.embedded')}</option>
            <option value="sandbox">{t('settings.profile.sandbox')}</option>
            <option value="live">{t('settings.profile.live')}</option>
            <option value="team">{t('settings.profile.team')}</option>
          </select>
        </Field>
        <Field
          label={t('settings.baseUrl')}
          error={fieldError(say, s.error, 'baseUrl')}
          hint={
            profile === 'embedded'
              ? view.embeddedBaseUrl
                ? t('settings.baseUrlEmbeddedAt', { url: view.embeddedBaseUrl })
                : t('settings.baseUrlEmbedded')
              : t('settings.baseUrlExample')
          }
        >
          <input
            name="baseUrl"
            type="url"
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="https://…"
            spellCheck={false}
            translate="no"
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
        <SaveRow label={t('settings.saveConnection')} save={s} />
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
  const { t, say } = useWords();
  return (
    <>
      <Field
        label={t('settings.teamDatabase')}
        error={fieldError(say, error, 'teamDatabaseUrl')}
        hint={t('settings.teamDatabaseHint')}
      >
        <input
          name="teamDatabaseUrl"
          type="url"
          value={values.teamDatabaseUrl}
          onChange={(e) => onChange({ teamDatabaseUrl: e.target.value })}
          placeholder="postgres://…"
          spellCheck={false}
          translate="no"
        />
      </Field>
      <Field
        label={t('settings.operatorLogin')}
        error={fieldError(say, error, 'teamLogin')}
        hint={t('settings.operatorLoginHint')}
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
        label={t('settings.tls')}
        error={fieldError(say, error, 'teamSslMode') ?? fieldError(say, error, 'teamSslCa')}
        hint={
          transport?.warning ? (
            <span className="warn-text">
              {t('settings.tlsNowWarning', { warning: say(transport.warningWords, transport.warning) })}
            </span>
          ) : transport ? (
            t('settings.tlsNow', { mode: transport.mode })
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
              {t(c.label)}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}
