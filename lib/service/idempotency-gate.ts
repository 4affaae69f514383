import type { IdempotencyCapability } from '../driver';
import type { ResourceService } from './resource-service';

/**
 * Decision 80's settings and stores for the router: each route keeps its keys in the database of
 * its resource (through the service's door). `REST_IDEMPOTENCY_TTL_S` (default 86,400) is how long
 * an answer is kept; a claim whose request never finished (an instance that died mid-request) may
 * be taken over after `REST_IDEMPOTENCY_STALE_S` (default 120: twelve request deadlines).
 */
export function idempotencyGate(serviceOf: (model: string) => ResourceService | undefined): {
  storeFor(route: { model: string }): IdempotencyCapability | null;
  ttlSeconds: number;
  staleSeconds: number;
} {
  const seconds = (name: string, fallback: number) => {
    const value = Number(process.env[name]);
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  return {
    storeFor: (route) => serviceOf(route.model)?.database.idempotency ?? null,
    ttlSeconds: seconds('REST_IDEMPOTENCY_TTL_S', 86_400),
    staleSeconds: seconds('REST_IDEMPOTENCY_STALE_S', 120),
  };
}

