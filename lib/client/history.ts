/** One entry of a record's history (decision 83), as `GET /{resource}/{id}/history` answers it. */
export interface HistoryEntry<R = Record<string, unknown>> {
  version: number;
  op: 'created' | 'updated' | 'deleted' | 'restored' | 'force_deleted' | 'reverted';
  at: string;
  actor: { id: string | number | null; roles: string[] };
  request_id: string | null;
  /** `[before, after]` of each changed field the caller may read. */
  changes: { [K in keyof R]?: [R[K] | null, R[K] | null] };
}

export interface HistoryPage<R> {
  current_page: number;
  data: Array<HistoryEntry<R>>;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

export interface HistoryOptions {
  pagination?: { page?: number; pageSize?: number };
  /** `with`: the history of a trashed record. */
  soft_delete?: 'with';
}

export interface RevertOptions {
  /** The version read (`"<version>"`, the record's ETag): a mismatch is a 412. */
  ifMatch?: string;
}

/** How the history calls reach the API: the resource client's own request. */
export type HistoryCall = <T>(method: string, path: string, body?: unknown, query?: Record<string, string>, headers?: Record<string, string>) => Promise<T>;

/** GET /{resource}/{id}/history: a page of the record's entries, newest first. */
export function readHistory<R>(call: HistoryCall, name: string, id: string | number, options: HistoryOptions = {}): Promise<HistoryPage<R>> {
  const query: Record<string, string> = {};
  if (options.pagination) query.pagination = JSON.stringify(options.pagination);
  if (options.soft_delete) query.soft_delete = options.soft_delete;
  return call('GET', `/${name}/${encodeURIComponent(String(id))}/history`, undefined, query);
}

/** POST /{resource}/{id}/history/{version}/revert: the fields that version changed, written back as an update. */
export function revertRecord<R>(call: HistoryCall, name: string, id: string | number, version: number, options: RevertOptions = {}): Promise<{ success: true; model: R }> {
  return call('POST', `/${name}/${encodeURIComponent(String(id))}/history/${version}/revert`, undefined, undefined, options.ifMatch ? { 'if-match': options.ifMatch } : undefined);
}
