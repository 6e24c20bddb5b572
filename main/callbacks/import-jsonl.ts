// Import callbacks saved as JSON lines: each line {"headers": {...}, "body": <callback JSON or its raw
// string>}. Streams the file (readline), one ingestion (one transaction) per line, through the same
// ingestCallback as the receiver, so a callback received live and imported later is a duplicate. A line
// longer or deeper than a saved callback ever is (shape-limits.ts) is refused by its number, before it is
// parsed, and the rest of the file is imported.
import fs from 'node:fs';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import type { Db } from '../store/sqlite/connection.js';
import type { Clock } from '../clock.js';
import { teamCallbackCopy } from './callback-event.js';
import { ingestCallback, securityRecord, verifyCallback, type IngestInput, type IngestOutcome } from './ingest.js';
import type { NewEvent } from '../collections/event-rules.js';
import type { Ledger } from '../collections/ledger.js';
import { SecurityLog } from './security-log.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { readWireJson } from '../service/wire-json.js';
import { CALLBACK_MAX_DEPTH, IMPORT_LINE_MAX_CHARS, importLineRefusal } from './shape-limits.js';

export type LineResult =
  | { line: number; result: 'imported'; reference: string; status: string; orphan: boolean }
  | { line: number; result: 'duplicate'; reference: string }
  | { line: number; result: 'bad_signature'; reference: string | null; reason: string }
  | { line: number; result: 'malformed'; message: string };

export interface ImportSummary {
  lines: number;
  imported: number;
  orphans: number;
  duplicates: number;
  badSignatures: number;
  malformed: number;
  /** Per line, in file order (blank lines are skipped and not listed); the first MAX_RESULTS lines. */
  results: LineResult[];
  /** More lines than MAX_RESULTS: the counts are complete, the list is not. */
  resultsTruncated: boolean;
}

const MAX_RESULTS = 10_000;

export interface ImportOptions {
  keys: SignatureKeys;
  clock: Clock;
  /** What the verified callbacks are stored through. */
  ledger: Ledger;
  signal?: AbortSignal;
  onLine?: (r: LineResult) => void;
  /** Longest accepted line in characters (the receiver's body limit plus room for headers). */
  maxLineChars?: number;
  /**
   * The keys this import's team-first write stored (a team desk). The desk's sync may pull that write back
   * and store a callback before this import reaches its line: it is still this import's, not a duplicate.
   */
  storedFirst?: ReadonlySet<string>;
}

function lineResult(line: number, o: IngestOutcome, storedFirst: ReadonlySet<string> | undefined): LineResult {
  if (o.result === 'duplicate' && storedFirst?.has(o.dedupeKey))
    return { line, result: 'imported', reference: o.reference, status: o.status, orphan: o.orphan };
  switch (o.result) {
    case 'imported':
      return { line, result: 'imported', reference: o.reference, status: o.status, orphan: o.orphan };
    case 'duplicate':
      return { line, result: 'duplicate', reference: o.reference };
    case 'bad_signature':
      return { line, result: 'bad_signature', reference: o.reference, reason: o.reason };
    case 'malformed':
      return { line, result: 'malformed', message: o.message };
  }
}

/** Imports a JSON-lines file, streamed line by line. */
export function importCallbacksJsonl(db: Db, file: string, opts: ImportOptions): Promise<ImportSummary> {
  return importCallbacksFrom(db, fs.createReadStream(file, { encoding: 'utf8' }), opts);
}

/** Imports JSON lines held in memory (e.g. a file the UI read), same rules. */
export function importCallbacksText(db: Db, text: string, opts: ImportOptions): Promise<ImportSummary> {
  return importCallbacksFrom(db, Readable.from([text]), opts);
}

async function importCallbacksFrom(db: Db, stream: Readable, opts: ImportOptions): Promise<ImportSummary> {
  const maxLine = opts.maxLineChars ?? IMPORT_LINE_MAX_CHARS;
  const summary: ImportSummary = {
    lines: 0,
    imported: 0,
    orphans: 0,
    duplicates: 0,
    badSignatures: 0,
    malformed: 0,
    results: [],
    resultsTruncated: false,
  };
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  // Lines that do not verify are counted (source 'import'), never stored as collection events.
  const log = new SecurityLog(db);
  let n = 0;
  try {
    for await (const raw of rl) {
      n += 1;
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('cancelled');
      const text = raw.trim();
      if (!text) continue;
      summary.lines += 1;
      let r: LineResult;
      if (text.length > maxLine) {
        r = { line: n, result: 'malformed', message: `line ${n} is longer than ${maxLine} characters` };
      } else {
        r = importLine(db, n, text, opts, log);
      }
      switch (r.result) {
        case 'imported':
          summary.imported += 1;
          if (r.orphan) summary.orphans += 1;
          break;
        case 'duplicate':
          summary.duplicates += 1;
          break;
        case 'bad_signature':
          summary.badSignatures += 1;
          break;
        case 'malformed':
          summary.malformed += 1;
          break;
      }
      if (summary.results.length < MAX_RESULTS) summary.results.push(r);
      else summary.resultsTruncated = true;
      opts.onLine?.(r);
    }
  } finally {
    rl.close();
    stream.destroy();
    log.flush(opts.clock.now());
  }
  return summary;
}

type Malformed = Extract<LineResult, { result: 'malformed' }>;

/** One line read as a delivery ({"headers", "body"}), or why it is malformed (`refusal`: refused on its shape). */
function readLine(n: number, text: string): { input: IngestInput } | (Malformed & { refusal?: 'too_deep' }) {
  const refused = importLineRefusal(text);
  if (refused)
    return { line: n, result: 'malformed', message: `line ${n} ${refused.message}`, refusal: refused.reason };
  // Read as the service's JSON is: a body given as an object keeps every digit of its amounts. The line's
  // shape was held to its limits just above, so the reader's own check never refuses here.
  const read = readWireJson(text, { maxDepth: CALLBACK_MAX_DEPTH + 1 });
  if (!read.ok) return { line: n, result: 'malformed', message: `line ${n} is not valid JSON` };
  const rec = read.value;
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) {
    return { line: n, result: 'malformed', message: `line ${n} must be an object {"headers": {...}, "body": ...}` };
  }
  const { headers, body } = rec as { headers?: unknown; body?: unknown };
  if (headers === undefined || headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    return {
      line: n,
      result: 'malformed',
      message: `line ${n}: "headers" must be an object of the callback's request headers`,
    };
  }
  if (body === undefined || body === null || (typeof body !== 'string' && typeof body !== 'object')) {
    return { line: n, result: 'malformed', message: `line ${n}: "body" must be the callback JSON or its raw text` };
  }
  const hs: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof v === 'string') hs[k.toLowerCase()] = v;
  }
  return { input: { body: body as string | object, headers: hs, source: 'import' } };
}

function importLine(db: Db, n: number, text: string, opts: ImportOptions, log: SecurityLog): LineResult {
  const read = readLine(n, text);
  if (!('input' in read)) {
    // Kept among the refused callbacks like the receiver's, with the line's start as its sample.
    if (read.refusal) log.record(read.refusal, 'import', opts.clock.now(), `${read.message}; ${text.slice(0, 200)}`);
    const { refusal: _, ...r } = read;
    return r;
  }
  const now = opts.clock.now();
  const o = ingestCallback(db, read.input, { keys: opts.keys, now, ledger: opts.ledger });
  if (o.result === 'bad_signature' || (o.result === 'malformed' && o.refusal)) {
    const { reason, sample } = securityRecord(o, read.input.body);
    log.record(reason, 'import', now, `line ${n}: ${sample}`);
  }
  const r = lineResult(n, o, opts.storedFirst);
  if (r.result === 'malformed') return { ...r, message: `line ${n}: ${r.message}` };
  return r;
}

/**
 * The events an import of `stream` would store, without storing anything: each line read and verified
 * as the import does, a callback repeated in the file once. A team desk records these in the team
 * database before it imports the file, as the team keeps them (teamCallbackCopy: the same copy serve
 * stores); they carry the same dedupe keys as the local copies, so the sync recognises them.
 */
export async function eventsOfImport(
  stream: Readable,
  opts: Pick<ImportOptions, 'keys' | 'clock' | 'maxLineChars'>,
): Promise<NewEvent[]> {
  const maxLine = opts.maxLineChars ?? IMPORT_LINE_MAX_CHARS;
  const out = new Map<string, NewEvent>();
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of rl) {
      n += 1;
      const text = raw.trim();
      if (!text || text.length > maxLine) continue;
      const read = readLine(n, text);
      if (!('input' in read)) continue;
      const v = verifyCallback(read.input, opts.keys);
      if (v.result !== 'verified' || out.has(v.callback.dedupeKey)) continue;
      out.set(v.callback.dedupeKey, teamCallbackCopy(v.callback, 'import', opts.clock.now()));
    }
  } finally {
    rl.close();
    stream.destroy();
  }
  return [...out.values()];
}
