// The keychain entries a team desk test leaves: the sandbox's service keys (stored as `connect` stores
// them) and, per operator, the remembered password and the offline check. One place, so every team desk
// test stores and forgets the same set.
import type { Sandbox } from '../../sandbox/index.js';
import { storeKeyFor } from '../../main/settings/key-binding.js';
import { KeyringAppSecret, KeyringSecretStore } from '../../main/secrets/index.js';
import { rememberedPasswordName } from '../../main/team/unlocker.js';
import { offlineCheckName } from '../../main/team/offline-check.js';

/** The team profile's service keys, bound to the sandbox's origin. */
export async function storeTeamKeys(sb: Sandbox): Promise<void> {
  const keys = new KeyringSecretStore('team');
  await storeKeyFor(keys, sb.baseUrl, 'public-key', sb.publicKey);
  await storeKeyFor(keys, sb.baseUrl, 'secret-key', sb.secretKey);
  await storeKeyFor(keys, sb.baseUrl, 'signing-key', sb.signingKey);
}

/** Removes the service keys and every operator's remembered password and offline check. */
export async function forgetTeamKeys(deskUrl: string, logins: readonly string[]): Promise<void> {
  const keys = new KeyringSecretStore('team');
  for (const name of ['public-key', 'secret-key', 'signing-key'] as const) await keys.delete(name).catch(() => {});
  await keys.bindOrigin(null).catch(() => {});
  for (const login of logins) {
    await new KeyringAppSecret(rememberedPasswordName(deskUrl, login)).delete().catch(() => {});
    await new KeyringAppSecret(offlineCheckName(deskUrl, login)).delete().catch(() => {});
  }
}
