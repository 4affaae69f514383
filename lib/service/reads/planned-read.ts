import type { ListQuery } from '../../query/ast';

/** A read about to run: what a read-through layer (the cache) needs to key it. */
export interface PlannedRead {
  /** list_all (index, first, relation lists) or get_one (show). */
  method: 'list_all' | 'get_one';
  /** The query as the driver will run it (scopes applied): the canonical form of the request. */
  query: ListQuery;
  /** What else shapes the answer and is not in `query` (an aggregate's groups, functions, order and page): part of the cache key. */
  shape?: unknown;
}
