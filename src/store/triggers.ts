/**
 * Triggers: the entries of published apps that start runs without a person (webhooks, schedules, plugins).
 * One row per (app, trigger node); `type` says which kind, so the webhook and schedule sides share the list,
 * its ids and its enabled state. Implemented in memory, on SQLite and on PostgreSQL (migration 11).
 */
export const TRIGGER_TYPES = ["webhook", "schedule", "plugin"] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export interface TriggerRecord {
  /** Webhooks: the unguessable id of the URL `/triggers/webhook/:id`; every type gets one from `sync`'s mint. */
  id: string;
  type: TriggerType;
  appId: string;
  /** The trigger node of the app's published workflow. */
  nodeId: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What an app's published workflow has: one trigger node of one type. */
export interface TriggerNodeRef {
  nodeId: string;
  type: TriggerType;
}

/**
 * Where a delivery is: `accepted` (stored with its run id reserved and the run's inputs, the run not yet
 * started), `started` (the run exists; the inputs are dropped), `failed` (recovery could not start it: the
 * app was unpublished or the trigger removed meanwhile; `error` says why).
 */
export const DELIVERY_STATES = ["accepted", "started", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One delivery a webhook accepted (a refused one stores nothing). */
export interface DeliveryRecord {
  id: string;
  triggerId: string;
  /** The `Idempotency-Key` header: a second delivery with the same key for the same trigger starts no run. */
  idempotencyKey?: string;
  /** The run the delivery started (minted before the run so a repeat can name it). */
  runId: string;
  /** The HTTP status answered. */
  status: number;
  receivedAt: number;
  /** Absent on rows stored before states existed: those are `started`. */
  state?: DeliveryState;
  /** While `accepted`: the run's inputs, so a process that died before starting the run can be made good. */
  payload?: Record<string, unknown>;
  /** When `failed`: why the run could not be started. */
  error?: string;
  /** Who is starting the run holds it from then (the route: at receipt; recovery: `claimDelivery`). */
  claimedAt?: number;
}

export interface TriggerStore {
  /**
   * Make the app's triggers exactly `nodes`: a (node, type) already there keeps its id and enabled state, a new
   * one gets `mint()` as its id (enabled), one no longer in `nodes` is deleted. Resolves to the app's triggers.
   */
  sync(appId: string, nodes: readonly TriggerNodeRef[], mint: () => string): Promise<TriggerRecord[]>;
  get(id: string): Promise<TriggerRecord | undefined>;
  /** Every trigger (of one app), oldest first. */
  list(appId?: string): Promise<TriggerRecord[]>;
  /** Undefined when no trigger has that id. */
  setEnabled(id: string, enabled: boolean): Promise<TriggerRecord | undefined>;
  /** The app was deleted: its triggers and their deliveries go. */
  deleteApp(appId: string): Promise<void>;
  /**
   * Store a delivery. With an idempotency key already stored for the trigger, nothing is written and the
   * stored delivery is returned with `fresh: false` (first one wins, also between concurrent callers).
   */
  recordDelivery(d: DeliveryRecord): Promise<{ delivery: DeliveryRecord; fresh: boolean }>;
  /** The delivery's run exists (`started`, its payload dropped) or cannot be started (`failed`, with why). */
  settleDelivery(id: string, outcome: { state: "started" } | { state: "failed"; error: string }): Promise<void>;
  /**
   * Take over an `accepted` delivery to start its run: only while it is unclaimed or its claim is older than
   * `staleBefore` (its claimer died), so of several recovering processes exactly one gets it (claimed at `now`).
   */
  claimDelivery(id: string, now: number, staleBefore: number): Promise<boolean>;
  /** Deliveries still `accepted` that were received before `receivedBefore`, oldest first (recovery). */
  acceptedDeliveries(receivedBefore: number, limit?: number): Promise<DeliveryRecord[]>;
  /** The trigger's latest deliveries, newest first. */
  deliveries(triggerId: string, limit?: number): Promise<DeliveryRecord[]>;
  /** How many deliveries are stored (for one trigger). */
  countDeliveries(triggerId?: string): Promise<number>;
}
