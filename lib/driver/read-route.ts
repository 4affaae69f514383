import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where the reads of one request may go (decision 86). Only a read route (a list, show, aggregate
 * or export) runs under one; every other read (inside a write: its checks, its answer, nested
 * reloads, the change feed's renders; a read outside any request) finds none and goes to the
 * primary.
 */
export interface ReadRoute {
  /** True when the caller has no write within the read-your-writes window (asked once, when a replica is first considered). */
  replicaAllowed(): Promise<boolean>;
  /** True while the read cache fills from this request's reads: the driver then notes where they came from. */
  filling: boolean;
  /** Set by a driver that served a read from a replica while filling: true when that replica had replayed every write committed before. */
  freshness: (() => Promise<boolean>)[];
}

const storage = new AsyncLocalStorage<ReadRoute>();

/** Runs a read route's work with replicas allowed (subject to `replicaAllowed`). */
export function routeReads<T>(replicaAllowed: () => Promise<boolean>, work: () => Promise<T>): Promise<T> {
  let asked: Promise<boolean> | null = null;
  const route: ReadRoute = { replicaAllowed: () => (asked ??= replicaAllowed()), filling: false, freshness: [] };
  return storage.run(route, work);
}

/** The read route the current work runs under, if any. */
export function currentReadRoute(): ReadRoute | undefined {
  return storage.getStore();
}

/**
 * Runs a read whose answer the read cache would store, and tells whether it may: true unless a
 * replica served part of it without having replayed every write committed before it.
 */
export async function readForCache<T>(run: () => Promise<T>): Promise<{ value: T; storable: boolean }> {
  const route = storage.getStore();
  if (!route) return { value: await run(), storable: true };
  const own: ReadRoute = { replicaAllowed: route.replicaAllowed, filling: true, freshness: [] };
  const value = await storage.run(own, run);
  const checks = await Promise.all(own.freshness.map((check) => check().catch(() => false)));
  return { value, storable: checks.every(Boolean) };
}

/** Set once a driver may read from replicas (SQL `replicas`, a MongoDB non-primary readPreference): writes are then marked for the window. */
let replicas = false;

export function useReplicas(): void {
  replicas = true;
}

export function replicasInUse(): boolean {
  return replicas;
}
