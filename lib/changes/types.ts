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
  /** REST_CHANGES_BUFFER (1,000): recent events kept per resource for `Last-Event-ID` resumes and slow readers. */
  bufferSize: number;
  /** REST_CHANGES_BUFFER_BYTES (16 MiB): the same buffer's bound in bytes (records' JSON size). */
  bufferBytes: number;
  /** REST_CHANGES_MAX_STREAMS (1,000): open streams per instance; beyond it a 503. */
  maxStreams: number;
  /** REST_CHANGES_MAX_STREAMS_PER_CALLER (a tenth of maxStreams, at least 1): open streams per user (or address); beyond it a 429. */
  maxStreamsPerCaller: number;
  /** REST_CHANGES_HEARTBEAT_MS (15,000): a comment line this often on every stream. */
  heartbeatMs: number;
  /**
   * REST_CHANGES_MAX_BUFFERED_BYTES (8 MiB): a stream further behind than this (events published
   * since it opened that it was not sent, plus what its socket holds) gets `reset` when it next
   * drains and goes on from the newest event.
   */
  maxBufferedBytes: number;
  /**
   * REST_CHANGES_MAX_BACKLOG_MS (1,000): a resource whose oldest event not yet handed to its
   * streams is older than this is shed (issue 52): the streams keeping up get `reset` and go on
   * from the newest event.
   */
  maxBacklogMs: number;
  /** REST_CHANGES_MAX_BACKLOG_BYTES (8 MiB): the same, for the bytes of the events not yet handed to the streams. */
  maxBacklogBytes: number;
  /** REST_CHANGES_REAUTH_S (5): every stream re-checks its subscriber's rights this often (seconds). */
  reauthSeconds: number;
  /**
   * The resource whose records are the users `authenticate` returns (name or MODEL): a write to a
   * subscriber's own record re-checks their streams before the next event. Default: the resource
   * declaring `grantableRoles`; null without one (the periodic re-check only).
   */
  usersResource: string | null;
  /** Redis for fan-out between instances (default: the read cache's Redis when it uses one, or REDIS_URL); null: in process. */
  redisUrl: string | null;
  /** Channel and key prefix in Redis (the cache's prefix). */
  prefix: string;
}

const int = (name: string, fallback: number): number => {
  const n = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

const seconds = (name: string, fallback: number): number => {
  const n = Number.parseFloat(process.env[name] ?? '');
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

export function changeSettingsFromEnv(overrides: Partial<ChangeFeedSettings>, redisUrl: string | null, prefix: string): ChangeFeedSettings {
  const maxStreams = overrides.maxStreams ?? int('REST_CHANGES_MAX_STREAMS', 1000);
  return {
    bufferSize: int('REST_CHANGES_BUFFER', 1000),
    bufferBytes: int('REST_CHANGES_BUFFER_BYTES', 16 * 1024 * 1024),
    maxStreams,
    maxStreamsPerCaller: int('REST_CHANGES_MAX_STREAMS_PER_CALLER', Math.max(1, Math.floor(maxStreams / 10))),
    heartbeatMs: int('REST_CHANGES_HEARTBEAT_MS', 15_000),
    maxBufferedBytes: int('REST_CHANGES_MAX_BUFFERED_BYTES', 8 * 1024 * 1024),
    maxBacklogMs: int('REST_CHANGES_MAX_BACKLOG_MS', 1000),
    maxBacklogBytes: int('REST_CHANGES_MAX_BACKLOG_BYTES', 8 * 1024 * 1024),
    reauthSeconds: seconds('REST_CHANGES_REAUTH_S', 5),
    usersResource: process.env.REST_CHANGES_USERS_RESOURCE || null,
    redisUrl,
    prefix,
    ...overrides,
  };
}
