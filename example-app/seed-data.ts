/**
 * The demo data set, driver-neutral: records refer to each other by key (`cat:laptops`), and the
 * seeder turns keys into the ids the database assigns. Small on purpose: enough to show filters,
 * hierarchy, eager loading, pivots and pagination with a pageSize of 5.
 */

export interface SeedCategory {
  key: string;
  name: string;
  parent: string | null;
}

export interface SeedProduct {
  key: string;
  name: string;
  sku: string;
  price: number;
  /** What the shop pays (readable by admin and editor only). */
  cost: number | null;
  stock: number;
  status: 'active' | 'inactive' | 'draft';
  description: string | null;
  featured: boolean;
  category: string | null;
  /** Tag keys in pivot order (position 1, 2, ...). */
  tags: string[];
}

export interface SeedUser {
  key: string;
  name: string;
  email: string;
  roles: string[];
  is_superuser: boolean;
}

export interface SeedReview {
  product: string;
  user: string | null;
  rating: number;
  comment: string | null;
}

/** Parents come before their children. */
export const categories: SeedCategory[] = [
  { key: 'electronics', name: 'Electronics', parent: null },
  { key: 'computers', name: 'Computers', parent: 'electronics' },
  { key: 'laptops', name: 'Laptops', parent: 'computers' },
  { key: 'desktops', name: 'Desktops', parent: 'computers' },
  { key: 'phones', name: 'Phones', parent: 'electronics' },
  { key: 'smartphones', name: 'Smartphones', parent: 'phones' },
  { key: 'books', name: 'Books', parent: null },
  { key: 'fiction', name: 'Fiction', parent: 'books' },
  { key: 'programming', name: 'Programming', parent: 'books' },
  { key: 'home', name: 'Home', parent: null },
];

export const tags: string[] = ['new', 'sale', 'bestseller', 'eco', 'gift'];

export const products: SeedProduct[] = [
  { key: 'ultrabook', name: 'Ultrabook 13', sku: 'LAP-001', price: 1299.99, cost: 779.99, stock: 12, status: 'active', description: 'Light 13-inch laptop.', featured: true, category: 'laptops', tags: ['new', 'bestseller'] },
  { key: 'workstation', name: 'Workstation 17', sku: 'LAP-002', price: 2499, cost: 1499.4, stock: 3, status: 'active', description: 'Heavy-duty 17-inch laptop.', featured: false, category: 'laptops', tags: ['sale'] },
  { key: 'tower', name: 'Mini Tower', sku: 'DSK-001', price: 899.5, cost: 539.7, stock: 0, status: 'inactive', description: null, featured: false, category: 'desktops', tags: [] },
  { key: 'phone-pro', name: 'Phone Pro', sku: 'PHN-001', price: 999, cost: 599.4, stock: 40, status: 'active', description: 'Flagship smartphone.', featured: true, category: 'smartphones', tags: ['new', 'bestseller', 'gift'] },
  { key: 'phone-lite', name: 'Phone Lite', sku: 'PHN-002', price: 399, cost: 239.4, stock: 25, status: 'active', description: 'Affordable smartphone.', featured: false, category: 'smartphones', tags: ['sale', 'eco'] },
  { key: 'flip', name: 'Flip Phone', sku: 'PHN-003', price: 59.9, cost: 35.94, stock: 7, status: 'draft', description: 'Coming soon.', featured: false, category: 'phones', tags: [] },
  { key: 'novel', name: 'The Long Road', sku: 'BK-001', price: 14.5, cost: 8.7, stock: 100, status: 'active', description: 'A novel.', featured: false, category: 'fiction', tags: ['bestseller', 'gift'] },
  { key: 'ts-book', name: 'TypeScript in Practice', sku: 'BK-002', price: 39, cost: 23.4, stock: 18, status: 'active', description: 'Types for working programmers.', featured: true, category: 'programming', tags: ['new'] },
  { key: 'sql-book', name: 'SQL by Example', sku: 'BK-003', price: 29.99, cost: 17.99, stock: 0, status: 'inactive', description: null, featured: false, category: 'programming', tags: ['sale'] },
  { key: 'lamp', name: 'Desk Lamp', sku: 'HOM-001', price: 24.9, cost: 14.94, stock: 55, status: 'active', description: 'LED, dimmable.', featured: false, category: 'home', tags: ['eco', 'gift'] },
  { key: 'kettle', name: 'Electric Kettle', sku: 'HOM-002', price: 34, cost: 20.4, stock: 9, status: 'active', description: null, featured: false, category: 'home', tags: ['eco'] },
  { key: 'mystery', name: 'Mystery Box', sku: 'MIS-001', price: 0, cost: 0, stock: 1, status: 'draft', description: 'Uncategorised on purpose.', featured: false, category: null, tags: ['gift'] },
];

/** One user per role. No fixed api tokens: the seeder makes fresh ones and prints them (a demo must not ship known credentials). */
export const users: SeedUser[] = [
  { key: 'alice', name: 'Alice Admin', email: 'alice@example.com', roles: ['admin'], is_superuser: false },
  { key: 'eddie', name: 'Eddie Editor', email: 'eddie@example.com', roles: ['editor'], is_superuser: false },
  { key: 'victor', name: 'Victor Viewer', email: 'victor@example.com', roles: ['viewer'], is_superuser: false },
  { key: 'carol', name: 'Carol Customer', email: 'carol@example.com', roles: ['customer'], is_superuser: false },
];

export interface SeedOrder {
  user: string;
  number: string;
  status: 'pending' | 'paid' | 'shipped' | 'cancelled';
  total: number;
  placed_at: string;
  notes: string | null;
}

/** A few orders per customer (example-app.md: orders are owned through user_id). */
export const orders: SeedOrder[] = [
  { user: 'carol', number: 'ORD-1001', status: 'shipped', total: 1299.99, placed_at: '2026-10-02T09:15:00.000Z', notes: null },
  { user: 'carol', number: 'ORD-1002', status: 'paid', total: 53.5, placed_at: '2026-11-12T17:40:00.000Z', notes: 'Gift wrap, please.' },
  { user: 'carol', number: 'ORD-1003', status: 'pending', total: 399, placed_at: '2026-11-20T08:05:00.000Z', notes: null },
];

export const reviews: SeedReview[] = [
  { product: 'ultrabook', user: 'carol', rating: 5, comment: 'Fast and light.' },
  { product: 'ultrabook', user: 'eddie', rating: 4, comment: null },
  { product: 'phone-pro', user: 'carol', rating: 4, comment: 'Great camera.' },
  { product: 'phone-pro', user: 'alice', rating: 3, comment: 'Pricey.' },
  { product: 'phone-lite', user: 'carol', rating: 4, comment: 'Good value.' },
  { product: 'novel', user: 'eddie', rating: 5, comment: 'Could not put it down.' },
  { product: 'ts-book', user: 'alice', rating: 5, comment: null },
  { product: 'lamp', user: null, rating: 2, comment: 'Flickers.' },
];
