export { Table, type ColumnDef, type SortingState, type TableProps } from './Table.js';
export { Money } from './Money.js';
export { AsOf } from './AsOf.js';
export { ErrorBanner, WarningBanner } from './ErrorBanner.js';
export { EmptyState, Loading } from './EmptyState.js';
export { ProgressBar } from './ProgressBar.js';
export { Field } from './Field.js';
export { Screen } from './Screen.js';
