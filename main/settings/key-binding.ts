// Merchant keys are bound to the origin they were saved for (DESIGN.md, Trust boundaries): the renderer
// may change a profile's base URL, but that must never move the secret key to another host. The store
// records the origin beside the keys; a key saved for another origin than the base URL's is not used,
// and changing the base URL's origin forgets the keys, so they are asked for again for the new host.
import { SECRET_NAMES, checkSecretValue, type SecretName, type SecretStore } from '../secrets/index.js';

/** scheme://host[:port] of an http(s) URL (what keys are bound to). */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/** Deletes every key and the origin they were bound to. */
export async function forgetKeys(store: SecretStore): Promise<void> {
  for (const name of SECRET_NAMES) await store.delete(name);
  await store.bindOrigin(null);
}

/**
 * Forgets the keys when the base URL's origin changes (a path change on the same host keeps them).
 * The origin they were saved for stays recorded, so the app can say they must be entered *again* for
 * the new host. Returns true when keys were forgotten.
 */
export async function forgetKeysIfOriginChanged(
  store: SecretStore,
  before: string | null,
  after: string | null,
): Promise<boolean> {
  if (before === after) return false;
  if (before && after && originOf(before) === originOf(after)) return false;
  for (const name of SECRET_NAMES) await store.delete(name);
  return true;
}

/**
 * Stores one key for `baseUrl`. Keys bound to another origin are forgotten first: a profile never holds
 * a mix of keys for two hosts.
 */
export async function storeKeyFor(store: SecretStore, baseUrl: string, name: SecretName, value: string): Promise<void> {
  const v = checkSecretValue(name, value); // a bad paste changes nothing
  const origin = originOf(baseUrl);
  const bound = await store.origin();
  if (bound !== origin) {
    if (bound !== null) await forgetKeys(store);
    await store.bindOrigin(origin);
  }
  await store.set(name, v);
}

export type KeyBinding =
  | { ok: true; origin: string }
  /** The keys were saved for `boundTo`; nothing may be sent with them to `origin`. */
  | { ok: false; origin: string; boundTo: string };

/**
 * Whether the stored keys may be sent to `baseUrl`. Keys saved before origins were recorded are bound
 * to the base URL they are used with now (the app checks this at every start, before any change).
 */
export async function checkKeyBinding(store: SecretStore, baseUrl: string, haveKeys: boolean): Promise<KeyBinding> {
  const origin = originOf(baseUrl);
  const bound = await store.origin();
  if (bound === null) {
    if (haveKeys) await store.bindOrigin(origin);
    return { ok: true, origin };
  }
  return bound === origin ? { ok: true, origin } : { ok: false, origin, boundTo: bound };
}
