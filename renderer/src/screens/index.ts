// The screens, in navigation order. To add one: make renderer/src/screens/<Name>/index.tsx exporting a
// component, and add a line here. `key` is the Ctrl+Shift+<key> shortcut; `path` is the #/path route.
import type { ComponentType } from 'react';
import type { TeamAction } from '../../../main/team/roles.shared.js';
import type { MessageId } from '../../../main/words/words.shared.js';
import { BalancesScreen } from './Balances/index.js';
import { PaymentOptionsScreen } from './PaymentOptions/index.js';
import { TakePaymentScreen } from './TakePayment/index.js';
import { CollectionsScreen } from './Collections/index.js';
import { ReconciliationScreen } from './Reconciliation/index.js';
import { ReportsScreen } from './Reports/index.js';
import { SettingsScreen } from './Settings/index.js';

export interface ScreenDef {
  path: string;
  /** The screen's name in the catalogue (its heading and its link). */
  title: MessageId;
  key: string;
  component: ComponentType;
  /**
   * The team action the screen is for, when it is for one only (TEAM_ACTIONS): for a role that may not,
   * the navigation says so (the screen still opens and says who can).
   */
  for?: TeamAction;
}

export const screens: ScreenDef[] = [
  { path: 'balances', title: 'app.screen.balances', key: '1', component: BalancesScreen },
  { path: 'payment-options', title: 'app.screen.paymentOptions', key: '2', component: PaymentOptionsScreen },
  {
    path: 'take-payment',
    title: 'app.screen.takePayment',
    key: '3',
    component: TakePaymentScreen,
    for: 'takePayments',
  },
  { path: 'collections', title: 'app.screen.collections', key: '4', component: CollectionsScreen },
  { path: 'reconciliation', title: 'app.screen.reconciliation', key: '5', component: ReconciliationScreen },
  { path: 'reports', title: 'app.screen.reports', key: '6', component: ReportsScreen },
  { path: 'settings', title: 'app.screen.settings', key: '7', component: SettingsScreen },
];
