// Public types of the sandbox: what startSandbox returns and what its test controls accept and answer.
// JSON shapes (snake_case) are the same over HTTP (/__sandbox/...) and through the in-process handle.
import type { Clock } from '../main/clock.js';

export interface SandboxOptions {
  /** Folder for the sandbox's state (SQLite file, RSA key pair, sandbox.json). Created if missing. */
  stateDir: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Where callbacks go. Overrides (and replaces) the one remembered in stateDir. */
  callbackUrl?: string | undefined;
  /** Callback back-off delays are divided by this (tests use e.g. 100). Default 1. */
  timeScale?: number;
  /** Base clock the sandbox clock offsets from (default: the system clock). */
  clock?: Clock;
  /** Requests per second allowed per public key before 429 (0 = no limit, the default). */
  rateLimitPerSecond?: number;
}

export interface Sandbox {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  signingKey: string;
  servicePublicKeyPath: string;
  servicePublicKeyPem: string;
  controls: SandboxControls;
  close(): Promise<void>;
}

/** What sandbox.json holds and the CLI prints. */
export interface SandboxInfo {
  base_url: string;
  public_key: string;
  secret_key: string;
  signing_key: string;
  service_public_key_path: string;
}

export type FaultRoute = 'balances' | 'providers' | 'initialize' | '*';
export type FaultKind =
  | 'latency'
  | '500'
  | '503'
  | 'html'
  | 'truncated_json'
  | 'wrong_types'
  | 'rate_limit'
  | 'drop_after_commit'
  | 'reset'
  | 'answer';

export interface FaultSpec {
  route: FaultRoute;
  kind: FaultKind;
  /** How many requests it hits; default 1; 0 = until cleared. */
  times?: number;
  latency_ms?: number;
  retry_after_s?: number;
  /** kind answer: the HTTP status (default 200) and the body text sent as it is, as application/json. */
  http_status?: number;
  body?: string;
  /** Only requests whose currency query is this one (e.g. the payment options of KES). */
  currency?: string;
}

export interface ActiveFault {
  id: number;
  route: FaultRoute;
  kind: FaultKind;
  /** Requests it will still hit; null = until cleared. */
  remaining: number | null;
  latency_ms: number;
  retry_after_s: number;
  http_status: number;
  body: string | null;
  currency: string | null;
}

export type CallbackMode = 'normal' | 'duplicate' | 'delay' | 'reorder' | 'hold';

export interface SandboxStateView {
  /** Sandbox clock, ISO 8601. */
  now: string;
  now_ms: number;
  callback_url: string | null;
  collections: number;
  faults: ActiveFault[];
  callback_mode: CallbackMode;
  callback_delay_ms: number;
  /** Deliveries not yet answered with a 2xx (held ones included). */
  pending_callbacks: number;
  held_callbacks: number;
  rate_limit_per_s: number;
  /** The payment options request refused without currency and transaction_type. */
  strict_options: boolean;
}

export type CollectionStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type FinalStatus = Exclude<CollectionStatus, 'PENDING'>;
export type CallbackEvent = 'transaction.completed' | 'transaction.failed' | 'transaction.cancelled';

export interface CallbackLogEntry {
  merchant_reference: string;
  event: CallbackEvent;
  transaction_status: FinalStatus;
  /** delivered (2xx) | http_error (non-2xx answer) | network_error | no_callback_url */
  status: 'delivered' | 'http_error' | 'network_error' | 'no_callback_url';
  http_status: number | null;
  attempt: number;
  /** Sandbox clock, ISO 8601. */
  at: string;
  url: string | null;
  error?: string;
}

export interface CollectionHistoryEntry {
  status: CollectionStatus;
  message: string;
  at: string;
  source: 'initialize' | 'page' | 'control' | 'expiry' | 'final_status_change';
}

/** The sandbox's own record of a collection (GET /__sandbox/collections/:merchant_reference). */
export interface CollectionView {
  id: number;
  merchant_reference: string;
  internal_reference: string;
  status: CollectionStatus;
  status_message: string;
  currency: string;
  /** Major units as JSON numbers, like the service. */
  amount: number;
  transaction_amount: number;
  transaction_charge: number;
  total_credit: number;
  reserve: number;
  charge_customer: boolean;
  allow_final_status_change: boolean;
  description: string;
  customer_name: string | null;
  customer_email: string | null;
  provider_code: string;
  card: { brand: string; last4: string };
  payment_url: string;
  redirect_url: string;
  created_at: string;
  expires_at: string;
  completed_at: string | null;
  cleared: boolean;
  history: CollectionHistoryEntry[];
}

export type CompleteOutcome = 'approve' | 'decline' | 'insufficient_funds' | 'cancel';

/** The same operations as the /__sandbox HTTP controls, in process. */
export interface SandboxControls {
  state(): SandboxStateView;
  config(cfg: { callback_url?: string | null; rate_limit_per_s?: number; strict_options?: boolean }): SandboxStateView;
  advanceClock(ms: number): Promise<SandboxStateView>;
  addFault(f: FaultSpec): ActiveFault;
  clearFaults(): void;
  setCallbackMode(mode: CallbackMode, delayMs?: number): void;
  releaseCallbacks(): Promise<number>;
  resendCallback(merchantReference: string): void;
  callbackLog(): CallbackLogEntry[];
  collection(merchantReference: string): CollectionView;
  complete(merchantReference: string, outcome: CompleteOutcome): Promise<{ redirect_url: string }>;
  flip(merchantReference: string, status: FinalStatus): Promise<CollectionView>;
  /** Resolves when every callback that is not held has been answered with a 2xx (or timeoutMs passes: rejects). */
  callbacksSettled(timeoutMs?: number): Promise<void>;
}
