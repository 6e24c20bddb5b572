// Settings: one form per section, each in its own file; this screen reads the settings and composes them.
import type { SettingsView } from '../../../../main/ipc/contract/settings.js';
import { useDeskQuery } from '../../hooks.js';
import { ErrorBanner, Loading, Screen, WarningBanner } from '../../ui/index.js';
import { ConnectionSection } from './Connection.js';
import { KeysSection } from './Keys.js';
import { PaymentsSection } from './Payments.js';
import { LockSection } from './Lock.js';
import { PollingSection } from './Polling.js';
import { ReceiverSection } from './Receiver.js';
import { ServiceKeySection } from './ServiceKey.js';
import { TeamSection } from './Team.js';
import { isTeamProfile } from './team-form.js';
import { LanguageSection } from './Language.js';
import { useWords } from '../../words/index.js';

export function SettingsScreen() {
  const q = useDeskQuery('settings.get', {}, { refreshOn: ['settings.changed'] });
  const { t } = useWords();
  return (
    <Screen title={t('app.screen.settings')}>
      <ErrorBanner error={q.error} title={t('settings.readFailed')} />
      {q.loading && <Loading text={t('settings.loading')} />}
      {/* The language is the desk's: it can be changed even when the profile's settings cannot be read. */}
      <LanguageSection />
      {q.data && <SettingsForms view={q.data} reload={q.reload} />}
    </Screen>
  );
}

function SettingsForms({ view, reload }: { view: SettingsView; reload: () => Promise<void> }) {
  const { t } = useWords();
  return (
    <>
      {view.problems.length > 0 && (
        <WarningBanner>
          {/* Each problem names the stored setting and what was wrong with its value, as main checked it. */}
          {t('settings.problems', { problems: view.problems.map((p) => p.message).join('; ') })}
        </WarningBanner>
      )}
      <ConnectionSection view={view} reload={reload} />
      {isTeamProfile(view.profile) && <TeamSection />}
      <KeysSection view={view} reload={reload} />
      <ServiceKeySection view={view} reload={reload} />
      <PaymentsSection view={view} reload={reload} />
      <ReceiverSection view={view} reload={reload} />
      <PollingSection view={view} reload={reload} />
      <LockSection view={view} reload={reload} />
    </>
  );
}
