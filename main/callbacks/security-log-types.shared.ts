// The security log's shapes, without Node imports, so the renderer can share them through the contract.
export type SecurityReason =
  | 'bad_signature'
  | 'missing_signature'
  | 'malformed'
  | 'too_large'
  /** Nested deeper than a callback ever is (callbacks/shape-limits.ts). */
  | 'too_deep'
  | 'unsupported_type'
  | 'rate_limited';

/** One hour's count for one reason and source (remote address, 'import', or 'other'). */
export interface SecurityLogRow {
  bucketStart: number;
  reason: SecurityReason;
  source: string;
  count: number;
  firstAt: number;
  lastAt: number;
  /** At most 3, each at most 512 bytes: never a whole body. */
  samples: string[];
}

export interface SecurityLogView {
  rows: SecurityLogRow[];
  /** Per reason over the whole period asked for. */
  totals: Record<string, number>;
}
