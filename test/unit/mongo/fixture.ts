import { ObjectId } from 'mongodb';
import type { ListQuery } from '../../../lib/query/ast';
import type { Catalog } from '../../../lib/resource/model-info';
import { fixtureCatalog } from '../../support/example-catalog';
import type { ModelMap } from '../../../drivers/mongo';

/** A hand-made Catalog and collection map of the example domain, for the pure compiler tests. */

export const catalog: Catalog = fixtureCatalog('objectId');

export const collections: ModelMap = {
  category: { collection: 'categories' },
  product: { collection: 'products' },
  review: { collection: 'reviews' },
  tag: { collection: 'tags' },
  user: { collection: 'users' },
};

/** A list query on products, ordered by id, unpaginated, all fields. */
export function listQuery(over: Partial<ListQuery> = {}): ListQuery {
  return { model: 'product', filter: null, select: null, relations: [], order: [{ relations: [], field: 'id', direction: 'asc' }], page: null, limit: null, ...over };
}

export const OID = '65a000000000000000000001';
export const oid = (hex = OID): ObjectId => new ObjectId(hex);

/** Readable product fields as the final $project lists them. */
export const PRODUCT_PROJECT = {
  _id: 1, name: 1, sku: 1, price: 1, stock: 1, status: 1, description: 1, featured: 1, category_id: 1, created_at: 1, updated_at: 1,
};
