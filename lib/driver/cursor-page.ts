import type { Scalar } from '../query/ast';

/**
 * The tail of a cursor page, the same on every driver: the query read one row past the page size
 * to tell whether more follow; `nextAfter` holds the sort keys of the page's last row.
 */
export function cursorPage<T>(rows: T[], size: number, keysOf: (last: T) => Scalar[]): { visible: T[]; hasMore: boolean; nextAfter: Scalar[] | null } {
  const hasMore = rows.length > size;
  const visible = hasMore ? rows.slice(0, size) : rows;
  const last = visible[visible.length - 1];
  return { visible, hasMore, nextAfter: hasMore && last !== undefined ? keysOf(last) : null };
}
