// "No one is shown another's work": the rules, screen by screen, that a desk's recorded window
// (support/shown.ts) is held to, against what the team record and the service hold at the end. Several
// people work at once, and some screens rightly show everyone's work (Collections lists every
// collection). What must never happen is a screen presenting another's work AS this person's, or saying
// of a payment what the service did not do. Per screen, "another's work" is:
//
// - Take payment (outcome panel, "Sending payment …", notices): any reference but the one of the charge
//   this desk's person pressed last (its intent in the team record created by this login, with the
//   description typed). Its outcome panel and receipt: another amount, a final word the service never
//   recorded for that reference, a receipt "Taken by" anyone else.
// - The payment window: a page other than the payment_url the service gave this charge (the one the
//   team record's initialize answer holds too), or one showing another charge's description.
// - The repeat-charge question ("Charge this card again?"): asked for a charge that was not this
//   desk's own current one, naming as the earlier charger someone who did not make the earlier charge
//   of that card and amount, or another amount.
// - A refusal addressed to this person ("Your resolution was not recorded"): shown on a desk that did
//   not press Resolve for that reference, or whose resolution stands, naming anyone but whose resolution
//   the record kept, or quoting another's note as "your note".
// - A note being typed (the resolve form): any text this person did not type.
// - The status bar: any login but this desk's own as signed in (or another role).
// - Settings: "Signed in as" another login; "(you)" beside another operator.
// - Balances, Payment options, Reports: these show no one's payment; any reference there is another's
//   unless it is this desk's own (a notice about its own event).
// - Collections and Reconciliation (shared: everyone's collections and exceptions): a reference the team
//   record does not hold; a status the service never gave that reference; "Created … by", "by" in a
//   timeline, "Resolved by" or a note's author naming anyone but who the record says did it.
import { referencesIn, type PaymentShown, type Shown } from './shown.js';

/** One Charge a person pressed (a confirmed repeat is the same charge: one intent). */
export interface ChargeOp {
  login: string;
  description: string;
  /** Whole UGX. */
  amount: number;
  pressedAt: number;
}

/** A Resolve a person pressed, with the note typed. */
export interface ResolveOp {
  login: string;
  reference: string;
  note: string;
}

export interface DeskShown {
  login: string;
  /** As the status bar words it: support, back office, admin. */
  role: string;
  shown: Shown[];
  paymentPages: PaymentShown[];
}

/** What happened, as the team record and the service hold it after the run. */
export interface Truth {
  intents: Map<
    string,
    { createdBy: string; description: string; amountMinor: number; createdAt: number; last4: string | null }
  >;
  /** The service's own record of each reference: every status it held, and its payment page. */
  service: Map<string, { statuses: string[]; paymentUrl: string }>;
  /** The payment_url of each reference's initialize answer in team.events. */
  initiateUrls: Map<string, string[]>;
  /** Resolutions (manual events) per reference, in seq order. */
  resolutions: Map<string, { actor: string; note: string }[]>;
  /** Every (note, actor) the record holds, as "note\u0000actor". */
  notedBy: Set<string>;
  /** Every actor of each reference's events. */
  actors: Map<string, Set<string>>;
}

const WORD: Record<string, string> = {
  INTENT: 'Intent saved',
  PENDING: 'Pending',
  COMPLETED: 'Approved',
  FAILED: 'Declined',
  CANCELLED: 'Cancelled',
};

export const ugx = (n: number): string => `UGX ${n.toLocaleString('en')}`;

/** A screen's text with every run of white space one space: Intl puts a no-break space inside amounts. */
const flat = (t: string): string => t.replace(/\s+/g, ' ');

const SHARED_NOTHING = new Set(['Balances', 'Payment options', 'Reports', 'Settings']);

/** Which of `ops` was this desk's current charge at `t`: the last one pressed by then. */
function currentOp(ops: ChargeOp[], t: number): ChargeOp | undefined {
  let cur: ChargeOp | undefined;
  for (const o of ops) if (o.pressedAt <= t) cur = o;
  return cur;
}

function at(t: number): string {
  return new Date(t).toISOString().slice(11, 23);
}

/**
 * Everything `desk` was shown that presented another's work as its own (or said what the service did
 * not do), one line each; [] when there is none.
 */
export function anotherWorkShown(
  desk: DeskShown,
  everyone: { logins: string[]; charges: ChargeOp[]; resolves: ResolveOp[] },
  truth: Truth,
): string[] {
  const wrong: string[] = [];
  const refOf = (o: ChargeOp) =>
    [...truth.intents].find(([, i]) => i.description === o.description && i.createdBy === o.login)?.[0];
  const mine = everyone.charges.filter((o) => o.login === desk.login).sort((a, b) => a.pressedAt - b.pressedAt);
  const myResolves = everyone.resolves.filter((r) => r.login === desk.login);
  const ownRefs = new Set([...mine.map(refOf), ...myResolves.map((r) => r.reference)].filter((r) => r !== undefined));
  const others = everyone.logins.filter((l) => l !== desk.login);
  const say = (s: Shown, what: string) => wrong.push(`${desk.login} at ${at(s.t)} on ${s.screen || '?'}: ${what}`);
  const allowed = (ref: string) =>
    new Set(['Intent saved', 'Pending', ...(truth.service.get(ref)?.statuses ?? []).map((x) => WORD[x] ?? x)]);

  for (const s of desk.shown) {
    const refs = referencesIn(s.text);
    for (const r of refs) if (!truth.intents.has(r)) say(s, `${r}, which the team record does not hold`);

    // The status bar: this desk's login and role, nobody else's.
    const signedIn = /Signed in: (\S+)(?: \(([^)]+)\))?/.exec(s.status);
    if (signedIn && (signedIn[1] !== desk.login || (signedIn[2] !== undefined && signedIn[2] !== desk.role)))
      say(s, `the status bar says signed in as ${signedIn[1]} (${signedIn[2]})`);
    for (const o of others) if (new RegExp(`\\b${o}\\b`).test(s.status)) say(s, `the status bar names ${o}`);

    if (s.screen === 'Take payment') {
      const op = currentOp(mine, s.t);
      const ref = op && refOf(op);
      for (const r of refs) if (r !== ref) say(s, `Take payment shows ${r}, not this desk's current charge (${ref})`);
      if (s.outcome && op && ref) {
        if (!s.outcome.includes(ref) || !flat(s.outcome).includes(ugx(op.amount)))
          say(s, `the outcome is not ${ref} for ${ugx(op.amount)}: ${s.outcome}`);
        const heading = s.outcome.split('\n')[0]!.trim();
        if (['Approved', 'Declined', 'Cancelled'].includes(heading) && !allowed(ref).has(heading))
          say(
            s,
            `Take payment announced ${heading} for ${ref}; the service recorded ${truth.service.get(ref)?.statuses}`,
          );
      }
      if (s.receipt && op && ref) {
        const by = /Taken by\s+(\S+)/.exec(s.receipt)?.[1];
        if (!s.receipt.includes(ref) || !flat(s.receipt).includes(ugx(op.amount)) || by !== desk.login)
          say(s, `the receipt is not ${ref}, ${ugx(op.amount)}, taken by ${desk.login}: ${s.receipt}`);
      }
    } else if (SHARED_NOTHING.has(s.screen)) {
      for (const r of refs) if (!ownRefs.has(r)) say(s, `${s.screen} shows ${r}`);
    }

    if (s.screen === 'Settings') {
      const me = /Signed in as (\S+)/.exec(s.text)?.[1];
      if (me !== undefined && me !== desk.login) say(s, `Settings says signed in as ${me}`);
      for (const t of s.tables)
        for (const row of t.rows)
          if (row.join(' ').includes('(you)') && !row.join(' ').includes(desk.login))
            say(s, `"(you)" beside another operator: ${row.join(' | ')}`);
    }

    // The repeat question: this desk's current charge, naming who made the earlier one of that card and amount.
    for (const d of s.dialogs.filter((x) => x.includes('Charge this card again?'))) {
      const op = currentOp(mine, s.t);
      const ref = op && refOf(op);
      const own = ref ? truth.intents.get(ref) : undefined;
      const earlier =
        own &&
        [...truth.intents]
          .filter(
            ([r, i]) =>
              r !== ref && i.amountMinor === own.amountMinor && i.last4 === own.last4 && i.createdAt <= own.createdAt,
          )
          .sort((a, b) => b[1].createdAt - a[1].createdAt)[0];
      const by = /by (\S+) at/.exec(d)?.[1];
      if (!op || !earlier || !flat(d).includes(ugx(op.amount)) || by !== earlier[1].createdBy)
        say(s, `the repeat question is not about this desk's charge and ${earlier?.[1].createdBy}'s earlier one: ${d}`);
    }

    // Alerts: a refusal of a resolution only to whom it was refused, naming whose stood and their own note.
    for (const a of s.alerts) {
      const refused = /Your resolution was not recorded: (\S+) already resolved (MD-\d{8}-[A-Z0-9]+) at/.exec(a);
      if (refused) {
        const [, winner, ref] = refused;
        const pressed = myResolves.find((r) => r.reference === ref);
        const stood = truth.resolutions.get(ref!) ?? [];
        if (!pressed) say(s, `told "your resolution was not recorded" for ${ref}, which this desk never resolved`);
        else if (!a.includes(pressed.note)) say(s, `the refusal does not quote this desk's own note: ${a}`);
        if (
          stood.length !== 1 ||
          stood[0]!.actor !== winner ||
          stood[0]!.actor === desk.login ||
          !a.includes(stood[0]!.note)
        )
          say(s, `the refusal names ${winner}; the record kept ${JSON.stringify(stood)}`);
      } else for (const r of referencesIn(a)) if (!ownRefs.has(r)) say(s, `an alert about ${r}: ${a}`);
    }

    // Notes in the resolve form: only what this person typed.
    for (const n of s.notes)
      if (n !== '' && !myResolves.some((r) => r.note.startsWith(n))) say(s, `a note this person did not type: ${n}`);

    // Shared lists: real references, statuses the service gave them.
    for (const t of s.tables.filter((x) => x.label === 'Collections' || x.label === 'Exceptions')) {
      const [iRef, iStatus] = [t.headers.indexOf('Reference'), t.headers.indexOf('Status')];
      for (const row of t.rows) {
        const ref = referencesIn(row[iRef] ?? '')[0];
        const status = (row[iStatus] ?? '').split('\n')[0]!.trim();
        if (ref && ![...allowed(ref)].some((w) => status.startsWith(w)))
          say(s, `${t.label} shows ${ref} as ${status}; the service recorded ${truth.service.get(ref)?.statuses}`);
      }
    }
    // Whose note a table says it is.
    for (const t of s.tables) {
      const iNote = t.headers.indexOf('Note / payload');
      if (iNote < 0) continue;
      for (const row of t.rows) {
        const m = /^(.*) — (\S+)$/s.exec(row[iNote] ?? '');
        if (m && !truth.notedBy.has(`${m[1]}\u0000${m[2]}`)) say(s, `${t.label} says ${m[2]} wrote "${m[1]}"`);
      }
    }

    // An open detail: who created it, who did each event, who resolved it, as the record says.
    if (s.detail) {
      const ref = referencesIn(s.detail)[0];
      const intent = ref ? truth.intents.get(ref) : undefined;
      if (ref && intent) {
        const created = /^Created\s*\n.* by (\S+)$/m.exec(s.detail)?.[1];
        if (created !== undefined && created !== intent.createdBy)
          say(s, `the detail of ${ref} says created by ${created}, the record ${intent.createdBy}`);
        for (const m of s.detail.matchAll(/^by (\S+)$/gm))
          if (!truth.actors.get(ref)?.has(m[1]!)) say(s, `the timeline of ${ref} names ${m[1]}`);
        const resolved = /Resolved by (\S+) at /.exec(s.detail);
        if (resolved) {
          const last = (truth.resolutions.get(ref) ?? []).at(-1);
          if (!last || last.actor !== resolved[1] || !s.detail.includes(last.note))
            say(s, `the detail of ${ref} says resolved by ${resolved[1]}; the record ${JSON.stringify(last)}`);
        }
      }
    }
  }

  // The payment windows: each one this desk's own charge's page, while that charge was current.
  const pages = desk.paymentPages.filter((p) => !p.url.startsWith('http://merchant-desk.localhost/'));
  for (const p of pages) {
    const op = currentOp(mine, p.t);
    const ref = op && refOf(op);
    const url = ref ? truth.service.get(ref)?.paymentUrl : undefined;
    if (!ref || p.url !== url) {
      wrong.push(`${desk.login} at ${at(p.t)}: a payment window on ${p.url}, not ${ref}'s page ${url}`);
      continue;
    }
    if (!(truth.initiateUrls.get(ref) ?? []).includes(p.url))
      wrong.push(`${desk.login}: ${ref}'s page ${p.url} is not the one its initialize answer recorded`);
    if (p.text !== null) {
      if (!p.text.includes(op.description))
        wrong.push(`${desk.login}: ${ref}'s payment page does not show "${op.description}"`);
      for (const o of everyone.charges)
        if (o !== op && p.text.includes(o.description))
          wrong.push(`${desk.login}: ${ref}'s payment page shows another charge, "${o.description}"`);
    }
  }
  for (const o of mine) {
    const ref = refOf(o);
    const url = ref ? truth.service.get(ref)?.paymentUrl : undefined;
    if (!ref) wrong.push(`${desk.login}: no intent in the team record for "${o.description}"`);
    else if (!pages.some((p) => p.url === url && p.text !== null))
      wrong.push(`${desk.login}: ${ref}'s payment window was never seen loaded`);
  }
  return wrong;
}
