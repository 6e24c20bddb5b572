import { EmptyState, Screen } from '../../ui/index.js';

// Placeholder until issue 4's screen lands. Replace this component; keep the export name.
export function TakePaymentScreen() {
  return (
    <Screen title="Take payment">
      <EmptyState title="Take payment is not here yet">It arrives with issue 4.</EmptyState>
    </Screen>
  );
}
