import type { ListResult, Row } from '../../driver';
import type { ListQuery } from '../../query/ast';
import { encodeCursor } from '../../query/cursor';

export interface OffsetEnvelope {
  current_page: number;
  data: Row[];
  total: number;
  per_page: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

export interface CursorEnvelope {
  data: Row[];
  per_page: number;
  next_cursor: string | null;
  has_more: boolean;
}

/** A list without pagination; `truncated` appears (true) only when the row cap cut it. */
export interface DataEnvelope {
  data: Row[];
  truncated?: true;
}

export type ListEnvelope = DataEnvelope | OffsetEnvelope | CursorEnvelope;

/** Wraps a driver result in the envelope of the query's pagination mode (decisions 15-16). */
export function listEnvelope(query: ListQuery, result: ListResult): ListEnvelope {
  const page = query.page;
  if (!page) {
    // the parser asks for one row over the cap (limit = cap + 1): getting it means there were more
    const cap = query.limit !== null && query.limit > 1 ? query.limit - 1 : null;
    if (cap !== null && result.rows.length > cap) return { data: result.rows.slice(0, cap), truncated: true };
    return { data: result.rows };
  }
  if (page.kind === 'offset') {
    const total = result.total ?? 0;
    const empty = result.rows.length === 0;
    const from = empty ? null : (page.page - 1) * page.size + 1;
    return {
      current_page: page.page,
      data: result.rows,
      total,
      per_page: page.size,
      last_page: Math.max(1, Math.ceil(total / page.size)),
      from,
      to: from === null ? null : from + result.rows.length - 1,
    };
  }
  const hasMore = result.hasMore === true;
  return {
    data: result.rows,
    per_page: page.size,
    next_cursor: hasMore && result.nextAfter ? encodeCursor(result.nextAfter, query) : null,
    has_more: hasMore,
  };
}

/** Keys of a relation list, in the spec's order (decision 67); the envelope's other keys follow. */
const RELATION_ORDER = ['current_page', 'data', 'per_page', 'total'];

/** A relation list envelope with the spec's key order: `current_page, data, per_page, total`, then the rest. */
export function relationEnvelope<E extends ListEnvelope>(envelope: E): E {
  const source = envelope as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of RELATION_ORDER) if (Object.prototype.hasOwnProperty.call(source, key)) out[key] = source[key];
  for (const [key, value] of Object.entries(source)) if (!(key in out)) out[key] = value;
  return out as unknown as E;
}
