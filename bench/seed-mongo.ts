import { MongoClient, ObjectId, type Document } from 'mongodb';
import { CHILDREN_PER_ROOT, SEED_TIME, childCategoryName, priceOf, type DatasetSize } from './dataset';

/**
 * Fills the example app's collections with insertMany through the official driver, the same
 * formulas as seed-sql.ts. ObjectIds are made in insertion order, so `_id` order = creation order.
 */
export async function seedMongo(uri: string, database: string, size: DatasetSize): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    const db = client.db(database);
    const time = new Date(SEED_TIME);
    const stamps = { created_at: time, updated_at: time };
    const ids = (n: number): ObjectId[] => Array.from({ length: n }, () => new ObjectId());

    const rootIds = ids(size.roots);
    const childCount = size.roots * CHILDREN_PER_ROOT;
    const childIds = ids(childCount);
    const categories: Document[] = [
      ...rootIds.map((_id, k) => ({ _id, name: `Department ${k + 1}`, parent_id: null, ...stamps })),
      ...childIds.map((_id, k) => {
        const i = size.roots + 1 + k;
        return { _id, name: childCategoryName(i), parent_id: rootIds[(i - size.roots - 1) % size.roots], ...stamps };
      }),
    ];
    const userIds = ids(size.users);
    const users = userIds.map((_id, k) => ({
      _id, name: `User ${k + 1}`, email: `user${k + 1}@example.com`, roles: ['customer'], is_superuser: false, api_token: null, ...stamps,
    }));
    const tagIds = ids(size.tags);
    const tags = tagIds.map((_id, k) => ({ _id, name: `tag-${k + 1}`, ...stamps }));
    const productIds = ids(size.products);
    const statuses = ['active', 'inactive', 'draft'];
    const products = productIds.map((_id, k) => {
      const i = k + 1;
      return {
        _id, name: `Product ${i}`, sku: `SKU-${String(i).padStart(6, '0')}`, price: priceOf(i), stock: i % 50,
        status: statuses[i % 3], description: i % 4 === 0 ? null : `Description of product ${i}`, featured: i % 10 === 0,
        category_id: childIds[(i * 7) % childCount], ...stamps,
      };
    });
    const reviews: Document[] = [];
    for (let r = 1; r <= size.products * size.reviewsPerProduct; r++) {
      reviews.push({
        _id: new ObjectId(), product_id: productIds[Math.floor((r - 1) / size.reviewsPerProduct)], user_id: userIds[r % size.users],
        rating: 1 + (r % 5), comment: r % 3 === 0 ? null : `Review ${r}`, ...stamps,
      });
    }
    const links: Document[] = [];
    productIds.forEach((product_id, k) => {
      for (let j = 1; j <= size.tagsPerProduct; j++) {
        links.push({ product_id, tag_id: tagIds[(k + 1 + (j - 1) * 3) % size.tags], position: j, note: null });
      }
    });
    for (const [name, docs] of [['categories', categories], ['users', users], ['tags', tags], ['products', products], ['reviews', reviews], ['product_tag', links]] as const) {
      await db.collection(name).insertMany(docs as Document[], { ordered: false });
    }
  } finally {
    await client.close();
  }
}
