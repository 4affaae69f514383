/** What a committed write did to one record (decision 60). */
export type ChangeKind = 'created' | 'updated' | 'deleted' | 'restored';

/**
 * One committed change as the feed carries it between instances: the whole record (every field
 * but write-only ones, JSON values, dates in the API's format), rendered per subscriber later.
 */
export interface ChangeEvent {
  /** Event id (`Last-Event-ID`), unique across instances: `<ms>-<instance>-<sequence>`. */
  id: string;
  /** The resource's MODEL. */
  model: string;
  kind: ChangeKind;
  /** The record's id. */
  key: string | number;
  record: Record<string, unknown>;
}

export interface ChangeFeedSettings {
  /** REST_CHANGES_BUFFER (1,000): recent events kept per resource for `Last-Event-ID` resumes. */
  bufferSize: number;
  /** REST_CHANGES_MAX_STREAMS (1,000): open streams per instance; beyond it a 503. */
  maxStreams: number;
  /** REST_CHANGES_HEARTBEAT_MS (15,000): a comment line this often on every stream. */
  heartbeatMs: number;
  /** REST_CHANGES_MAX_BUFFERED_BYTES (1 MiB): a stream whose unsent bytes exceed this is dropped. */
  maxBufferedBytes: number;
  /** Redis for fan-out between instances (default: the read cache's Redis when it uses one, or REDIS_URL); null: in process. */
  redisUrl: string | null;
  /** Channel and key prefix in Redis (the cache's prefix). */
  prefix: string;
}

const int = (name: string, fallback: number): number => {
  const n = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

export function changeSettingsFromEnv(overrides: Partial<ChangeFeedSettings>, redisUrl: string | null, prefix: string): ChangeFeedSettings {
  return {
    bufferSize: int('REST_CHANGES_BUFFER', 1000),
    maxStreams: int('REST_CHANGES_MAX_STREAMS', 1000),
    heartbeatMs: int('REST_CHANGES_HEARTBEAT_MS', 15_000),
    maxBufferedBytes: int('REST_CHANGES_MAX_BUFFERED_BYTES', 1024 * 1024),
    redisUrl,
    prefix,
    ...overrides,
  };
}
