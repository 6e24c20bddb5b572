import { EmptyState, Screen } from '../../ui/index.js';

export function BalancesScreen() {
  return (
    <Screen title="Balances">
      <EmptyState title="Coming up" />
    </Screen>
  );
}
