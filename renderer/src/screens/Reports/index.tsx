import { EmptyState, Screen } from '../../ui/index.js';

// Placeholder until issue 5's screen lands. Replace this component; keep the export name.
export function ReportsScreen() {
  return (
    <Screen title="Reports">
      <EmptyState title="Reports is not here yet">It arrives with issue 5.</EmptyState>
    </Screen>
  );
}
