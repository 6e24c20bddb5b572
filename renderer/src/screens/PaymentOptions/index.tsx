import { EmptyState, Screen } from '../../ui/index.js';

export function PaymentOptionsScreen() {
  return (
    <Screen title="PaymentOptions">
      <EmptyState title="Coming up" />
    </Screen>
  );
}
