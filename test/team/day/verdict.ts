// The day's verdict is the service's: what it charged, failed and cancelled, and the callbacks it got a 2xx
// for (the sandbox's own state and delivery log), and what serve acknowledged (its journal). Each check
// returns the problems it found, in words a person debugging the day reads; none means the desks, the team
// record and every screen agree with what happened at the service.
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CollectionView } from '../../../sandbox/index.js';
import { JOURNAL_FILE } from '../../../main/serve/journal.js';
import { CARDS } from '../../collections/harness.js';
import type { DeskView } from '../convergence/views.js';
import type { ChargeRecord, DayLog } from './ops.js';
import { referencesOf, serviceView } from './ops.js';
import type { DayDesk, DayWorld } from './world.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const WORD: Record<string, string> = { COMPLETED: 'Approved', FAILED: 'Declined', CANCELLED: 'Cancelled' };
/** Minor-unit exponents of the day's currencies (the sandbox answers major units). */
const EXPONENT: Record<string, number> = { UGX: 0, KES: 2, NGN: 2, USD: 2 };
const REPEAT_WINDOW_MS = 5 * 60_000;

/** Every collection the service has: its own state file lists them, its controls give each one's record. */
export function serviceCollections(w: DayWorld): Map<string, CollectionView> {
  const db = new Database(path.join(w.root, 'sandbox', 'sandbox.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const refs = db.prepare('SELECT merchant_reference FROM collections').pluck().all() as string[];
    return new Map(refs.map((r) => [r, serviceView(w, r)!]));
  } finally {
    db.close();
  }
}

const minor = (c: CollectionView) => {
  const e = EXPONENT[c.currency] ?? 2;
  // The sandbox's amount is a JSON number of major units; its text has at most `e` decimals.
  const [whole, frac = ''] = String(c.amount).split('.');
  return Number(whole) * 10 ** e + Number((frac + '0'.repeat(e)).slice(0, e) || 0);
};

/** Every desk (and the replay) against the service's collections: status, amount, currency, changed-after-final. */
export function checkCollections(service: Map<string, CollectionView>, name: string, v: DeskView): string[] {
  const out: string[] = [];
  const mine = new Map(v.collections.map((c) => [c.merchant_reference as string, c]));
  const rec = new Map(v.reconciliation.map((r) => [r.merchant_reference as string, r]));
  for (const [ref, s] of service) {
    const c = mine.get(ref);
    if (!c) {
      out.push(`${name} does not show ${ref}, which the service has (${s.status})`);
      continue;
    }
    const finals = s.history.filter((h) => FINAL.has(h.status)).map((h) => h.status);
    const kinds = JSON.parse(String(rec.get(ref)?.kinds ?? '[]')) as string[];
    const flagged = kinds.includes('final_status_changed');
    // Another status than the service's last is accepted only when the desk flags the collection "changed
    // after final" AND shows a status the service held. Callbacks carry nothing that orders them (no sequence,
    // no time we can trust: the spec's "Collection callback" shows no payload), so when the service's
    // deliveries arrive in another order than it sent them (COMPLETED retried 22 times, delivered after the
    // CANCELLED that followed it) no desk can know which is its last word: it shows the last to arrive and
    // asks a person. Unflagged, or a status the service never held, is a desk looking settled on an untruth.
    if (c.status !== s.status && !(flagged && finals.some((f) => f === c.status)))
      out.push(
        `${name} shows ${ref} as ${String(c.status)}; the service has it ${s.status}` +
          (flagged ? `, and never held ${String(c.status)}` : ', and the desk does not flag it "changed after final"'),
      );
    if (c.amount_minor !== minor(s) || c.currency !== s.currency)
      out.push(
        `${name} shows ${ref} as ${String(c.amount_minor)} ${String(c.currency)}; the service has ${s.amount} ${s.currency}`,
      );
    const changed = finals.some((f, i) => i > 0 && f !== finals[i - 1]);
    if (changed && !flagged)
      out.push(`${name} does not flag ${ref} "changed after final"; the service went ${finals.join(' -> ')}`);
  }
  for (const [ref, c] of mine) {
    if (service.has(ref)) continue;
    // Never sent, or sent and refused with a 4xx that proves nothing was made, or an answer that never came.
    if (!['INTENT', 'REJECTED', 'UNKNOWN'].includes(String(c.status)))
      out.push(`${name} shows ${ref} as ${String(c.status)}, a collection the service does not have`);
  }
  return out;
}

/**
 * What a desk back from being away past the stale-pending threshold showed "Stale pending": once the
 * service has a final status for it, that desk no longer asks for a check (its status against the
 * service's is checkCollections').
 */
export function checkStale(service: Map<string, CollectionView>, log: DayLog, views: Map<string, DeskView>): string[] {
  const out: string[] = [];
  for (const { desk, reference } of log.stale) {
    const s = service.get(reference);
    const r = views.get(desk)?.reconciliation.find((x) => x.merchant_reference === reference);
    const open = JSON.parse(String(r?.open_kinds ?? '[]')) as string[];
    if (s && FINAL.has(s.status) && open.includes('stale_pending'))
      out.push(
        `${desk}, back from being away, showed ${reference} "Stale pending"; the service has it ${s.status}, ` +
          `and the desk still shows it stale pending (${String(r?.outcome)})`,
      );
  }
  return out;
}

/** What each charge operation's window showed against what the service did for that operation's reference. */
export function checkScreens(service: Map<string, CollectionView>, log: DayLog): string[] {
  const out: string[] = [];
  for (const rec of log.charges)
    for (const s of rec.shown) {
      const c = s.reference ? service.get(s.reference) : undefined;
      const first = c?.history.find((h) => FINAL.has(h.status))?.status;
      const at = `op #${rec.op} (${rec.desk}) showed ${s.word} for ${s.reference ?? 'no reference'}`;
      if (['Approved', 'Declined', 'Cancelled'].includes(s.word)) {
        if (!first) out.push(`${at}; the service has ${c ? 'no final status for it' : 'no such collection'}`);
        else if (WORD[first] !== s.word) out.push(`${at}; the service's outcome was ${first}`);
      } else if (s.word === 'Pending' && !c) out.push(`${at}; the service never had that collection`);
      else if (s.word === 'Rejected' && c) out.push(`${at}; the service made that collection (${c.status})`);
    }
  return out;
}

/**
 * No charge operation made two collections at the service, every service collection belongs to exactly
 * one charge operation, and a repeat of the same card and amount within the window was asked about.
 */
export async function checkCharges(
  w: DayWorld,
  service: Map<string, CollectionView>,
  log: DayLog,
  desks: Map<string, DayDesk>,
): Promise<string[]> {
  const out: string[] = [];
  const owner = new Map<string, ChargeRecord[]>();
  for (const rec of log.charges) {
    const d = desks.get(rec.desk)!;
    const refs = referencesOf(d, rec);
    if (refs.length > 1) out.push(`op #${rec.op} (${rec.desk}) made more than one payment: ${refs.join(', ')}`);
    // A re-send follows the reference it was given: not a charge of its own.
    if (rec.resend) continue;
    for (const r of refs) owner.set(r, [...(owner.get(r) ?? []), rec]);
  }
  for (const [ref, c] of service) {
    const by = owner.get(ref) ?? [];
    if (by.length !== 1)
      out.push(
        `the service has ${ref} (${c.status}), made by ${by.length} charge operations (${by.map((b) => `#${b.op}`).join(', ')})`,
      );
  }
  // The repeat question: each intent against the intents before it, by the team database's own time.
  const intents = (
    await w.owner.query<{ merchant_reference: string; created_at: Date }>(
      'SELECT merchant_reference, created_at FROM team.intents ORDER BY created_at',
    )
  ).rows;
  const seen: { card: string; amount: number; at: number; ref: string }[] = [];
  for (const i of intents) {
    const recs = owner.get(i.merchant_reference);
    const what = log.cardOf.get(i.merchant_reference);
    if (!recs || !what) continue;
    const at = i.created_at.getTime();
    const card = CARDS[what.card];
    // Within the window by a clear margin (the guard reads its own clock_timestamp, not created_at).
    const twin = seen.find(
      (s) => s.card === card && s.amount === what.amountMinor && at - s.at < REPEAT_WINDOW_MS - 5_000,
    );
    // A twin in the failover's lost tail is no excuse: its desk puts its guard back with it (team migration 20).
    if (twin && !recs[0]!.asked)
      out.push(
        `op #${recs[0]!.op} charged ${card} ${what.amountMinor} (${i.merchant_reference}) ${Math.round((at - twin.at) / 1000)} s after ${twin.ref} without asking`,
      );
    seen.push({ card, amount: what.amountMinor, at, ref: i.merchant_reference });
  }
  return out;
}

/** Every callback the service got a 2xx for is in team.events exactly once, and in serve's journal. */
export async function checkCallbacks(w: DayWorld, service: Map<string, CollectionView>): Promise<string[]> {
  const out: string[] = [];
  const attempts = w.sb.controls.callbackLog();
  const delivered = attempts.filter((e) => e.status === 'delivered');
  const rows = (
    await w.owner.query<{ event_key: string; merchant_reference: string; status: string }>(
      "SELECT event_key, merchant_reference, status FROM team.events WHERE source = 'callback'",
    )
  ).rows;
  const stored = new Map<string, number>();
  for (const r of rows)
    stored.set(`${r.merchant_reference} ${r.status}`, (stored.get(`${r.merchant_reference} ${r.status}`) ?? 0) + 1);
  // Once per time the service reached that status: each time is a callback of its own, and a retry of one
  // is that one again. That holds while a reference's deliveries arrive in the order the service sent them;
  // when they do not (a retry of an earlier status delivered after a later one), a late retry is stored as
  // said again and a change back that overtook the status before it as a repeat (docs/team.md, "The service
  // said it again"): then at least once, and at most once per attempt.
  const runs = (xs: string[]) => xs.filter((x, i) => i === 0 || x !== xs[i - 1]).join(' ');
  const inOrder = (ref: string) =>
    runs(delivered.filter((e) => e.merchant_reference === ref).map((e) => e.transaction_status)) ===
    runs((service.get(ref)?.history ?? []).map((h) => h.status).filter((x) => FINAL.has(x)));
  for (const d of new Set(delivered.map((e) => `${e.merchant_reference} ${e.transaction_status}`))) {
    const n = stored.get(d) ?? 0;
    const [ref, status] = d.split(' ') as [string, string];
    const times = service.get(ref)?.history.filter((h) => h.status === status).length ?? 1;
    const tries = attempts.filter((e) => `${e.merchant_reference} ${e.transaction_status}` === d).length;
    if (n < 1) out.push(`the service's callback ${d} got a 2xx and is not in team.events`);
    else if (!inOrder(ref)) {
      if (n > tries)
        out.push(`the service's callback ${d} is in team.events ${n} times; the service sent it ${tries} times`);
    } else if (n !== times)
      out.push(
        `the service's callback ${d} is in team.events ${n} times; the service reached ${status} ${times} times`,
      );
  }
  const journal = new Database(path.join(w.serve.dataDir, JOURNAL_FILE), { readonly: true, fileMustExist: true });
  try {
    const kept = new Set(journal.prepare('SELECT event_key FROM acknowledged').pluck().all() as string[]);
    const keys = new Set(rows.map((r) => r.event_key));
    for (const k of kept)
      if (!keys.has(k)) out.push(`serve's journal acknowledged ${k}, which team.events does not hold`);
    // What serve wrote is in its journal (an imported callback is a desk's, not serve's).
    const serveRows = (
      await w.owner.query<{ event_key: string }>(
        "SELECT event_key FROM team.events WHERE source = 'callback' AND actor NOT IN (SELECT login FROM team.operators WHERE role <> 'receiver')",
      )
    ).rows;
    for (const r of serveRows)
      if (!kept.has(r.event_key))
        out.push(`team.events holds serve's callback ${r.event_key}, missing from serve's journal`);
  } finally {
    journal.close();
  }
  return out;
}

/**
 * Every event the failover's promoted standby never had is back in team.events (event_key is unique: once).
 * Each was written by a desk (its copy and outbox hold it) or by serve (its journal does), so each has a
 * witness to put it back; one missing is a lost resolution, intent or answer nothing else here would see.
 */
export async function checkLostTail(w: DayWorld, log: DayLog): Promise<string[]> {
  if (!log.lostTail.length) return [];
  const back = new Set(
    (
      await w.owner.query<{ event_key: string }>('SELECT event_key FROM team.events WHERE event_key = ANY($1)', [
        log.lostTail,
      ])
    ).rows.map((r) => r.event_key),
  );
  return log.lostTail
    .filter((k) => !back.has(k))
    .map((k) => `the failover lost ${k} from team.events and no desk or serve put it back`);
}

export interface RefusedEntry {
  desk: string;
  reference: string;
  kind: string;
  reason: string;
  because: string;
}

/** Every outbox entry the team database refused, with what in the record explains it (or a problem). */
export async function explainRefusals(
  log: DayLog,
  desks: DayDesk[],
): Promise<{ listed: RefusedEntry[]; problems: string[] }> {
  const listed: RefusedEntry[] = [];
  const problems: string[] = [];
  for (const d of desks) {
    const rows = await d.read<{
      event_key: string;
      kind: string;
      reason: string;
      created_at: number;
      updated_at: number;
      reference: string;
    }>(
      `SELECT o.event_key, o.kind, o.reason, o.created_at, o.updated_at, c.merchant_reference AS reference
         FROM team_outbox o JOIN collection_events e ON e.id = o.event_id LEFT JOIN collections c ON c.id = e.collection_id
        WHERE o.state = 'refused'`,
    );
    for (const r of rows) {
      // The role this login held when it was sent: a charge's answers are support's (or admin's) to write.
      const changes = log.roles.filter((x) => x.login === d.login);
      const notCharger = changes.some((x) => x.role !== 'support' && x.role !== 'admin' && x.at <= r.updated_at);
      const because = notCharger
        ? `${d.login} was ${changes.filter((x) => x.at <= r.updated_at).at(-1)?.role} when it was sent`
        : /resolv|claim/i.test(r.reason)
          ? 'another desk held it first'
          : '';
      if (!because)
        problems.push(
          `${d.name}: the team database refused ${r.kind} of ${r.reference} (${r.reason}) and nothing in the record explains it`,
        );
      listed.push({ desk: d.name, reference: r.reference, kind: r.kind, reason: r.reason, because });
    }
  }
  return { listed, problems };
}

export interface Liveness {
  approved: number;
  declinedOrCancelled: number;
  resolutions: number;
  resolutionsRefused: number;
}

/** What the day did, from its outcomes; and what it should have done to prove anything. */
export function liveness(log: DayLog): { got: Liveness; problems: string[] } {
  const c = (k: string) => log.counts[k] ?? 0;
  const got = {
    approved: c('charge Approved') + c('resend Approved'),
    declinedOrCancelled: c('charge Declined') + c('charge Cancelled') + c('resend Declined') + c('resend Cancelled'),
    resolutions: c('resolution accepted'),
    resolutionsRefused: c('resolution refused: another desk first'),
  };
  const problems: string[] = [];
  if (got.approved < 20) problems.push(`only ${got.approved} approved charges (at least 20)`);
  if (got.declinedOrCancelled < 5)
    problems.push(`only ${got.declinedOrCancelled} declined or cancelled charges (at least 5)`);
  if (got.resolutions < 5) problems.push(`only ${got.resolutions} accepted resolutions (at least 5)`);
  if (got.resolutionsRefused < 3)
    problems.push(`only ${got.resolutionsRefused} resolutions refused because another desk's came first (at least 3)`);
  for (const [k, n] of Object.entries(log.faults)) if (n < 1) problems.push(`the fault "${k}" never struck`);
  return { got, problems };
}
