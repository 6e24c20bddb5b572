// Fuzz of every IPC channel (issue 39, item 3): the one dispatcher both shells call, with the idle lock's
// gate, over a real core (composeCore on the embedded profile: a real SQLite file, the embedded sandbox
// over HTTP on 127.0.0.1, the real keychain under scripts/with-keyring.sh), as test/ipc does. Each channel
// gets random payloads: anything a bridge could carry, hostile values (deep nesting, long text, odd
// numbers, __proto__ keys), and objects made of the channel's own field names with such values. Each call
// asserts: the dispatcher answers (never throws), an answer of the documented form, a refusal that is a
// documented kind with plain words (never 'internal': a random payload is no fault of ours), nothing
// changed by a refused call, no unhandled rejection; afterwards the reads answer as they did before.
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeCore, type Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, type Dispatch } from '../../main/ipc/dispatch.js';
import { lockGate } from '../../main/ipc/lock-gate.js';
import { channels } from '../../main/ipc/contract/index.js';
import { silentLogger } from '../../main/log/index.js';
import { fuzzBudget, INTERNAL_TEXT, unhandledRejections } from './budget.js';
import { callbackBody, deeplyNested } from '../callbacks/support.js';
import { fileTempDir } from '../support/tmp.js';

const NAMES = Object.keys(channels).sort();
const budget = fuzzBudget('ipc', 1);
const rejections = unhandledRejections();
const PASSPHRASE = 'fuzz passphrase 39';
let dataDir: string;
let core: Core;
let dispatch: Dispatch;
// The core's clock, moved on an hour whenever the lock has to be passed (its wrong-try back-off included).
let skew = 0;

beforeAll(async () => {
  dataDir = fileTempDir('md-fuzz-ipc-');
  core = await composeCore({
    dataDir,
    logger: silentLogger(),
    poll: false,
    clock: { now: () => Date.now() + skew },
    lock: { checkEveryMs: 0 },
  });
  await core.ready();
  dispatch = createDispatcher(buildHandlers(core), silentLogger(), lockGate(core.lock), '/fuzz/merchant-desk.log');
  expect(await dispatch('lock.setPassphrase', { passphrase: PASSPHRASE })).toMatchObject({ ok: true });
}, 120_000);
afterAll(async () => {
  await core?.close();
  rejections.stop();
  expect(rejections.list).toEqual([]);
});

/** What a refused call must leave as it was: the rows people see and the settings. */
function state(): string {
  const db = core.db;
  const count = (t: string) => db.prepare(`SELECT count(*) FROM ${t}`).pluck().get();
  return JSON.stringify({
    collections: count('collections'),
    events: count('collection_events'),
    settings: db.prepare('SELECT key, value FROM settings ORDER BY key').all(),
  });
}

/** Open again if a call locked the desk (lock.lockNow) or the clock passed the idle time. */
async function unlocked(): Promise<void> {
  const s = await dispatch('lock.status', {});
  if (s.ok && (s.value as { locked: boolean }).locked) {
    skew += 3_600_000;
    expect(await dispatch('lock.unlock', { secret: PASSPHRASE })).toMatchObject({ ok: true });
  }
}

/** Each channel's field names, from its contract schema (the input side). */
const FIELDS = new Map<string, string[]>(
  NAMES.map((name) => {
    const schema = (channels as Record<string, { request: z.ZodType }>)[name]!.request;
    const js = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as { properties?: object };
    // A profile switch is a success that changes which database every later call reads: left to the
    // profile tests, so the reads can be compared at the end.
    return [name, Object.keys(js.properties ?? {}).filter((k) => !(name === 'settings.update' && k === 'profile'))];
  }),
);

const hostile = fc.oneof(
  fc.integer({ min: 1, max: 12_000 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown),
  fc.integer({ min: 1, max: 3_000 }).map((n) => {
    let v: unknown = 0;
    for (let i = 0; i < n; i++) v = { a: v };
    return v;
  }),
  fc.constant('x'.repeat(1_100_000)),
  // A callbacks file whose line is nested 8,000 deep (what ran the import out of stack, issue 39).
  fc.constant(`{"headers":{},"body":${deeplyNested(callbackBody('MD-FZ-IPC'))}}\n`),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -1, 0, 0.5),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}') as unknown),
  fc.constantFrom(
    '',
    ' ',
    'UGX',
    'ugx',
    'KES',
    'COMPLETED',
    'collections',
    'balances',
    'a.jsonl',
    '../etc/passwd',
    '/etc/passwd',
    '2026-01-01',
    '\u0000',
    'https://x.example',
    'javascript:alert(1)',
  ),
);
const value = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.anything({
      maxDepth: 4,
      withNullPrototype: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withSparseArray: true,
      withBoxedValues: true,
    }),
  },
  { weight: 2, arbitrary: hostile },
  { weight: 2, arbitrary: fc.oneof(fc.string({ maxLength: 60 }), fc.integer(), fc.boolean(), fc.constant(null)) },
);
const payloadFor = (name: string) =>
  fc.oneof(
    value,
    fc
      .tuple(
        fc.subarray(FIELDS.get(name)!),
        fc.array(value, { minLength: 12, maxLength: 12 }),
        fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 2 }),
      )
      .map(([keys, values, extra]) => ({ ...extra, ...Object.fromEntries(keys.map((k, i) => [k, values[i % 12]])) })),
  );

describe('fuzz: every IPC channel', () => {
  it(
    'random payloads on every channel: a documented answer in plain words, and a refusal changes nothing',
    async () => {
      const reads = ['settings.get', 'collections.list', 'reconcile.summary', 'balances.latest'] as const;
      const before = await Promise.all(reads.map((c) => dispatch(c, {})));
      const call = async (name: string, payload: unknown) => {
        await unlocked();
        const was = state();
        const r = await dispatch(name, payload);
        expect(typeof r).toBe('object');
        if (r.ok) {
          expect(r.value).not.toBeUndefined();
        } else {
          expect(r.error.kind, `${name}: ${r.error.message}`).not.toBe('internal');
          expect(typeof r.error.message).toBe('string');
          expect(r.error.message.length).toBeGreaterThan(0);
          expect(r.error.message).not.toMatch(INTERNAL_TEXT);
          expect(state(), `${name} was refused (${r.error.message}) but changed what is stored`).toBe(was);
        }
      };
      // Every channel with a body nested past any limit, and each of its fields with a callbacks file whose
      // line is, whatever the runs below pick.
      const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) as unknown;
      const deepLine = `{"headers":{},"body":${deeplyNested(callbackBody('MD-FZ-IPC'))}}\n`;
      for (const name of NAMES) {
        await call(name, deep);
        await call(name, Object.fromEntries(FIELDS.get(name)!.map((k) => [k, deep])));
        for (const k of FIELDS.get(name)!) await call(name, { [k]: deepLine });
      }
      await budget.check(
        'payloads',
        fc.asyncProperty(
          fc.constantFrom(...NAMES).chain((name) => fc.tuple(fc.constant(name), payloadFor(name))),
          async ([name, payload]) => call(name, payload),
        ),
        300,
      );
      await unlocked();
      // The reads answer as they did.
      const after = await Promise.all(reads.map((c) => dispatch(c, {})));
      for (const [i, c] of reads.entries()) {
        expect(after[i]!.ok, c).toBe(true);
        // When it was computed moves with the clock; what it says must not.
        const same = (r: unknown) => JSON.stringify(r, (k, v: unknown) => (k === 'computedAt' ? undefined : v));
        if (c === 'collections.list' || c === 'reconcile.summary') expect(same(after[i]), c).toBe(same(before[i]));
      }
    },
    budget.timeoutMs + 120_000,
  );
});
