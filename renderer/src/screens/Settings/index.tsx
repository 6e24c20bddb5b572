import { EmptyState, Screen } from '../../ui/index.js';

export function SettingsScreen() {
  return (
    <Screen title="Settings">
      <EmptyState title="Coming up" />
    </Screen>
  );
}
