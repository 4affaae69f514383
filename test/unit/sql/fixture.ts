import type { ListQuery } from '../../../lib/query/ast';
import type { Catalog } from '../../../lib/resource/model-info';
import { fixtureCatalog } from '../../support/example-catalog';
import type { ModelMap } from '../../../drivers/sql';

/** A hand-made Catalog and table map of the example domain, for the pure compiler tests. */

export const catalog: Catalog = fixtureCatalog('integer');

const table = (name: string, columns: Record<string, string> = {}) => ({ table: name, columns, createdAt: 'created_at', updatedAt: 'updated_at' });

export const tables: ModelMap = {
  category: table('categories'),
  product: table('products'),
  review: table('reviews'),
  tag: table('tags'),
  user: table('users'),
};

/** A list query on products, ordered by id, unpaginated, all fields. */
export function listQuery(over: Partial<ListQuery> = {}): ListQuery {
  return { model: 'product', filter: null, select: null, relations: [], order: [{ relations: [], field: 'id', direction: 'asc' }], page: null, limit: null, ...over };
}
