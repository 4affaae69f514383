/** The generated shop, the same shape on both drivers (only the sizes differ). */
export interface DatasetSize {
  products: number;
  /** Root categories; each has CHILDREN_PER_ROOT children, and products sit in the children. */
  roots: number;
  reviewsPerProduct: number;
  tags: number;
  tagsPerProduct: number;
  users: number;
}

export const CHILDREN_PER_ROOT = 9;

export const SQL_DATASET: DatasetSize = { products: 20_000, roots: 5, reviewsPerProduct: 2, tags: 10, tagsPerProduct: 2, users: 5 };
export const MONGO_DATASET: DatasetSize = { products: 2_000, roots: 5, reviewsPerProduct: 2, tags: 10, tagsPerProduct: 2, users: 5 };

/** One fixed timestamp with sub-millisecond digits zero, so both sides format it identically. */
export const SEED_TIME = '2026-01-01T00:00:00.123Z';

/** Child categories alternate between these names; the benchmark filters on the first. */
export function childCategoryName(index: number): string {
  return `${index % 2 === 0 ? 'Gadgets' : 'Tools'} ${index}`;
}

/** Price of product i (1-based): 0.00 .. 99.99, about 90 % of them >= 10. */
export function priceOf(i: number): number {
  return ((i * 37) % 10_000) / 100;
}

export function describe(size: DatasetSize): string {
  const categories = size.roots * (1 + CHILDREN_PER_ROOT);
  return (
    `${size.products.toLocaleString('en')} products in ${categories} categories (${size.roots} roots x ${CHILDREN_PER_ROOT} children), ` +
    `${(size.products * size.reviewsPerProduct).toLocaleString('en')} reviews, ${size.tags} tags with ` +
    `${(size.products * size.tagsPerProduct).toLocaleString('en')} pivot rows, ${size.users} users`
  );
}

/** Tokens of the benchmark's callers when the server runs with BENCH_AUTH=1. */
export const BENCH_TOKENS = { superuser: 'bench-superuser-token', viewer: 'bench-viewer-token' };
