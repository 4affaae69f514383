import express from 'express';
import { ObjectId, type Db, type Document } from 'mongodb';
import { isoMicro } from './format';

/** A stored document as the API shows it: `_id` -> `id` first, ObjectIds as hex, Dates as ISO strings. */
function out(value: unknown): unknown {
  if (value instanceof ObjectId) return value.toHexString();
  if (value instanceof Date) return isoMicro(value);
  if (Array.isArray(value)) return value.map(out);
  if (value && typeof value === 'object') {
    const doc = value as Document;
    const result: Document = '_id' in doc ? { id: out(doc._id) } : {};
    for (const [key, field] of Object.entries(doc)) if (key !== '_id') result[key] = out(field);
    return result;
  }
  return value;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `Gadgets%` -> /^Gadgets.*$/ (the like form the benchmark sends: `%` only). */
function likeToRegex(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('%').map(escapeRegex).join('.*')}$`, 's');
}

/**
 * The hand-written twin of the products list on MongoDB: one aggregate with $lookup (category
 * filter, page and count in a $facet, then category.parent and reviews for the page only).
 */
export function mongoBaselineApp(db: Db): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/products', async (req, res, next) => {
    try {
      const minPrice = Number(req.query.min_price ?? 10);
      const pattern = likeToRegex(String(req.query.category_like ?? '%'));
      const page = Number(req.query.page ?? 1);
      const pageSize = Number(req.query.page_size ?? 25);
      const [result] = await db
        .collection('products')
        .aggregate<{ total: { n: number }[]; data: Document[] }>([
          { $match: { price: { $gte: minPrice } } },
          { $lookup: { from: 'categories', localField: 'category_id', foreignField: '_id', as: 'category' } },
          { $unwind: '$category' },
          { $match: { 'category.name': pattern } },
          { $sort: { _id: 1 } },
          {
            $facet: {
              total: [{ $count: 'n' }],
              data: [
                { $skip: (page - 1) * pageSize },
                { $limit: pageSize },
                { $lookup: { from: 'categories', localField: 'category.parent_id', foreignField: '_id', as: 'parent' } },
                { $set: { 'category.parent': { $ifNull: [{ $first: '$parent' }, null] } } },
                { $unset: 'parent' },
                { $lookup: { from: 'reviews', localField: '_id', foreignField: 'product_id', as: 'reviews' } },
              ],
            },
          },
        ])
        .toArray();
      const total = result.total[0]?.n ?? 0;
      const data = result.data.map(out);
      res.json({
        current_page: page,
        data,
        total,
        per_page: pageSize,
        last_page: Math.max(1, Math.ceil(total / pageSize)),
        from: data.length ? (page - 1) * pageSize + 1 : null,
        to: data.length ? (page - 1) * pageSize + data.length : null,
      });
    } catch (err) {
      next(err);
    }
  });
  return app;
}
