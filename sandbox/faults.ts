// Injected faults for the service routes (test controls). Each fault hits the next `times` matching
// requests (0 = until cleared).
import type { ActiveFault, FaultKind, FaultRoute, FaultSpec } from './types.js';
import { ApiError } from './envelope.js';

export const FAULT_ROUTES: FaultRoute[] = ['balances', 'providers', 'initialize', '*'];
export const FAULT_KINDS: FaultKind[] = [
  'latency',
  '500',
  '503',
  'html',
  'truncated_json',
  'wrong_types',
  'rate_limit',
  'drop_after_commit',
  'reset',
  'answer',
];

export class Faults {
  private list: ActiveFault[] = [];
  private seq = 0;

  add(spec: FaultSpec): ActiveFault {
    const s = spec as Partial<FaultSpec> & Record<string, unknown>;
    if (!FAULT_ROUTES.includes(s.route as FaultRoute)) {
      throw new ApiError(422, `route must be one of ${FAULT_ROUTES.join(', ')}`, { field: 'route' });
    }
    if (!FAULT_KINDS.includes(s.kind as FaultKind)) {
      throw new ApiError(422, `kind must be one of ${FAULT_KINDS.join(', ')}`, { field: 'kind' });
    }
    const times = s.times ?? 1;
    if (!Number.isInteger(times) || times < 0) {
      throw new ApiError(422, 'times must be a whole number, 0 meaning until cleared', { field: 'times' });
    }
    const latency = s.latency_ms ?? 2000;
    if (!Number.isInteger(latency) || latency < 0) {
      throw new ApiError(422, 'latency_ms must be a whole number of milliseconds', { field: 'latency_ms' });
    }
    const retryAfter = s.retry_after_s ?? 1;
    if (!Number.isInteger(retryAfter) || retryAfter < 0) {
      throw new ApiError(422, 'retry_after_s must be a whole number of seconds', { field: 'retry_after_s' });
    }
    const httpStatus = s.http_status ?? 200;
    if (!Number.isInteger(httpStatus) || httpStatus < 200 || httpStatus > 599) {
      throw new ApiError(422, 'http_status must be an HTTP status from 200 to 599', { field: 'http_status' });
    }
    if (s.currency !== undefined && (typeof s.currency !== 'string' || !/^[A-Za-z]{3}$/.test(s.currency))) {
      throw new ApiError(422, 'currency must be a 3-letter code (the fault hits only requests for it)', {
        field: 'currency',
      });
    }
    if (s.kind === 'answer' && typeof s.body !== 'string') {
      throw new ApiError(422, 'body must be the text to answer with (kind answer)', { field: 'body' });
    }
    const f: ActiveFault = {
      id: ++this.seq,
      route: s.route as FaultRoute,
      kind: s.kind as FaultKind,
      remaining: times === 0 ? null : times,
      latency_ms: latency,
      retry_after_s: retryAfter,
      http_status: httpStatus,
      body: typeof s.body === 'string' ? s.body : null,
      currency: typeof s.currency === 'string' ? s.currency.toUpperCase() : null,
    };
    this.list.push(f);
    return { ...f };
  }

  clear(): void {
    this.list = [];
  }

  view(): ActiveFault[] {
    return this.list.map((f) => ({ ...f }));
  }

  /** Takes the next fault for this route and currency query (if any), counting it down. */
  take(route: Exclude<FaultRoute, '*'>, currency?: string): ActiveFault | undefined {
    const f = this.list.find(
      (x) => (x.route === route || x.route === '*') && (x.currency === null || x.currency === currency?.toUpperCase()),
    );
    if (!f) return undefined;
    if (f.remaining !== null) {
      f.remaining -= 1;
      if (f.remaining <= 0) this.list = this.list.filter((x) => x !== f);
    }
    return { ...f };
  }
}
