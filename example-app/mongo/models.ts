import { Schema, type Connection, type Model, type Types } from 'mongoose';

/**
 * The demo shop as mongoose models (fields as in the spec's example-app.md). Every nullable field
 * defaults to null so stored documents always hold every field, like rows of the SQL twin.
 * Relations come from the ObjectId `ref`s; the pivot `product_tag` is a plain collection the
 * library reads and writes through its resource declarations.
 */

const timestamps = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;
const { ObjectId } = Schema.Types;

export interface CategoryDoc {
  name: string;
  parent_id: Types.ObjectId | null;
  created_at: Date;
  updated_at: Date;
}

export interface ProductDoc {
  name: string;
  sku: string;
  price: number;
  cost: number | null;
  stock: number;
  status: 'active' | 'inactive' | 'draft';
  description: string | null;
  featured: boolean;
  category_id: Types.ObjectId | null;
  created_at: Date;
  updated_at: Date;
}

export interface ReviewDoc {
  product_id: Types.ObjectId;
  user_id: Types.ObjectId | null;
  rating: number;
  comment: string | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface TagDoc {
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface UserDoc {
  name: string;
  email: string;
  roles: string[];
  is_superuser: boolean;
  api_token: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderDoc {
  user_id: Types.ObjectId;
  number: string;
  status: 'pending' | 'paid' | 'shipped' | 'cancelled';
  total: number;
  placed_at: Date;
  notes: string | null;
  /** Decision 81's version field: set to 1 on create and incremented by the library, never from a body. */
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface ProductTagDoc {
  product_id: Types.ObjectId;
  tag_id: Types.ObjectId;
  position: number | null;
  note: string | null;
}

export interface MongoModels {
  Category: Model<CategoryDoc>;
  Product: Model<ProductDoc>;
  Review: Model<ReviewDoc>;
  Tag: Model<TagDoc>;
  User: Model<UserDoc>;
  Order: Model<OrderDoc>;
  /** The pivot collection `product_tag` (no timestamps: a link, not a record). */
  ProductTag: Model<ProductTagDoc>;
}

/** Collection name of the product/tag pivot, shared with the resource declarations. */
export const PIVOT_COLLECTION = 'product_tag';

const categorySchema = new Schema<CategoryDoc>(
  {
    name: { type: String, required: true, maxlength: 100 },
    parent_id: { type: ObjectId, ref: 'Category', default: null, index: true },
  },
  { timestamps, collection: 'categories', versionKey: false },
);

const productSchema = new Schema<ProductDoc>(
  {
    name: { type: String, required: true, maxlength: 200 },
    sku: { type: String, required: true, unique: true },
    price: { type: Number, required: true, min: 0 },
    cost: { type: Number, default: null, min: 0 },
    stock: { type: Number, default: 0, min: 0, integer: true }, // integer: described as an integer field, as on SQL
    status: { type: String, enum: ['active', 'inactive', 'draft'], default: 'draft' },
    description: { type: String, default: null },
    featured: { type: Boolean, default: false },
    category_id: { type: ObjectId, ref: 'Category', default: null, index: true },
  },
  { timestamps, collection: 'products', versionKey: false },
);

const reviewSchema = new Schema<ReviewDoc>(
  {
    product_id: { type: ObjectId, ref: 'Product', required: true, index: true },
    user_id: { type: ObjectId, ref: 'User', default: null, index: true },
    rating: { type: Number, required: true, min: 1, max: 5, integer: true },
    comment: { type: String, default: null },
    // soft delete: the deletion time (declared `softDelete: true` on the resource)
    deleted_at: { type: Date, default: null },
  },
  { timestamps, collection: 'reviews', versionKey: false },
);

const tagSchema = new Schema<TagDoc>(
  {
    name: { type: String, required: true, unique: true },
  },
  { timestamps, collection: 'tags', versionKey: false },
);

const userSchema = new Schema<UserDoc>(
  {
    name: { type: String, required: true },
    email: { type: String, required: true, unique: true },
    roles: { type: [String], default: [] },
    is_superuser: { type: Boolean, default: false },
    api_token: { type: String, default: null },
  },
  { timestamps, collection: 'users', versionKey: false },
);

const orderSchema = new Schema<OrderDoc>(
  {
    user_id: { type: ObjectId, ref: 'User', required: true, index: true },
    number: { type: String, required: true, unique: true, maxlength: 40 },
    status: { type: String, enum: ['pending', 'paid', 'shipped', 'cancelled'], default: 'pending' },
    total: { type: Number, required: true, min: 0 },
    placed_at: { type: Date, required: true },
    notes: { type: String, default: null },
    version: { type: Number, default: 1, integer: true },
  },
  { timestamps, collection: 'orders', versionKey: false },
);

const productTagSchema = new Schema<ProductTagDoc>(
  {
    product_id: { type: ObjectId, ref: 'Product', required: true },
    tag_id: { type: ObjectId, ref: 'Tag', required: true, index: true },
    position: { type: Number, default: null },
    note: { type: String, default: null },
  },
  { collection: PIVOT_COLLECTION, versionKey: false },
);
// One row per pair; also serves lookups by product_id (its prefix).
productTagSchema.index({ product_id: 1, tag_id: 1 }, { unique: true });

/** Defines the models on `connection` (idempotent per connection). Call `syncMongoModels` before serving. */
export function defineMongoModels(connection: Connection): MongoModels {
  const model = <T>(name: string, schema: Schema<T>): Model<T> =>
    (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
  return {
    Category: model('Category', categorySchema),
    Product: model('Product', productSchema),
    Review: model('Review', reviewSchema),
    Tag: model('Tag', tagSchema),
    User: model('User', userSchema),
    Order: model('Order', orderSchema),
    ProductTag: model('ProductTag', productTagSchema),
  };
}

/**
 * Creates the collections and builds every index (unique ones included) before the first request:
 * a duplicate must be a 409 from the first write on, and transactions need existing collections.
 */
export async function syncMongoModels(models: MongoModels): Promise<void> {
  for (const model of Object.values(models) as Array<Model<unknown>>) {
    await model.init();
    await model.syncIndexes();
  }
}

/** Every model, the pivot included, for clean-up. */
export function allMongoModels(models: MongoModels): Array<Model<unknown>> {
  return Object.values(models) as Array<Model<unknown>>;
}
