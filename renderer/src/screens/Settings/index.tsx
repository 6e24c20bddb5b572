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

export function SettingsScreen() {
  const q = useDeskQuery('settings.get', {}, { refreshOn: ['settings.changed'] });
  return (
    <Screen title="Settings">
      <ErrorBanner error={q.error} title="Could not read the settings" />
      {q.loading && <Loading what="settings" />}
      {q.data && <SettingsForms view={q.data} reload={q.reload} />}
    </Screen>
  );
}

function SettingsForms({ view, reload }: { view: SettingsView; reload: () => Promise<void> }) {
  return (
    <>
      {view.problems.length > 0 && (
        <WarningBanner>
          Some stored settings were not valid and their defaults are used:{' '}
          {view.problems.map((p) => p.message).join('; ')}
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
