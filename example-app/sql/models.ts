import { DataTypes, Model, type ModelStatic, type Sequelize } from 'sequelize';

/**
 * The demo shop as Sequelize models on PostgreSQL (fields as in the spec's example-app.md).
 * The database enforces the shop's rules with real constraints:
 * - products.sku, tags.name, users.email, orders.number: unique;
 * - orders.user_id -> users: ON DELETE RESTRICT (a user with orders cannot be deleted);
 * - products.category_id, categories.parent_id -> categories: ON DELETE RESTRICT (a category in use
 *   cannot be deleted);
 * - reviews.product_id -> products: ON DELETE RESTRICT (a reviewed product cannot be deleted);
 * - reviews.user_id -> users: ON DELETE SET NULL (deleting a user keeps their reviews, anonymous);
 * - product_tag.product_id / tag_id: ON DELETE CASCADE (links go with either side), unique pair.
 * The same rules are declared in resources.ts so the mongo driver enforces them too.
 */

export interface SqlModels {
  Category: ModelStatic<Model>;
  Product: ModelStatic<Model>;
  Review: ModelStatic<Model>;
  Tag: ModelStatic<Model>;
  User: ModelStatic<Model>;
  Order: ModelStatic<Model>;
  /** The pivot table `product_tag` (no timestamps: a link, not a record). */
  ProductTag: ModelStatic<Model>;
}

/** Table name of the product/tag pivot, shared with the resource declarations. */
export const PIVOT_TABLE = 'product_tag';

const common = { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' } as const;

/** A foreign-key column with its constraint (the association options repeat the same rule). */
function foreignKey(table: string, allowNull: boolean, onDelete: 'RESTRICT' | 'SET NULL' | 'CASCADE') {
  return { type: DataTypes.INTEGER, allowNull, references: { model: table, key: 'id' }, onDelete, onUpdate: 'CASCADE' };
}

/** Defines the models and associations on `sequelize`; `await sequelize.sync()` creates the schema. */
export function defineSqlModels(sequelize: Sequelize): SqlModels {
  const Category = sequelize.define(
    'Category',
    {
      name: { type: DataTypes.STRING(100), allowNull: false },
      parent_id: foreignKey('categories', true, 'RESTRICT'),
    },
    { ...common, tableName: 'categories', indexes: [{ fields: ['parent_id'] }] },
  );

  const Product = sequelize.define(
    'Product',
    {
      name: { type: DataTypes.STRING(200), allowNull: false },
      sku: { type: DataTypes.STRING(255), allowNull: false, unique: true },
      price: { type: DataTypes.DOUBLE, allowNull: false },
      cost: { type: DataTypes.DOUBLE, allowNull: true, defaultValue: null },
      stock: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'draft' },
      description: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
      featured: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      category_id: foreignKey('categories', true, 'RESTRICT'),
    },
    { ...common, tableName: 'products', indexes: [{ fields: ['category_id'] }] },
  );

  const Review = sequelize.define(
    'Review',
    {
      product_id: foreignKey('products', false, 'RESTRICT'),
      user_id: foreignKey('users', true, 'SET NULL'),
      rating: { type: DataTypes.INTEGER, allowNull: false },
      comment: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
    },
    // soft-deletable: Sequelize's paranoid flag is what the library reads (deleted_at)
    { ...common, tableName: 'reviews', paranoid: true, deletedAt: 'deleted_at', indexes: [{ fields: ['product_id'] }, { fields: ['user_id'] }] },
  );

  const Tag = sequelize.define(
    'Tag',
    {
      name: { type: DataTypes.STRING(255), allowNull: false, unique: true },
    },
    { ...common, tableName: 'tags' },
  );

  const User = sequelize.define(
    'User',
    {
      name: { type: DataTypes.STRING(255), allowNull: false },
      email: { type: DataTypes.STRING(255), allowNull: false, unique: true },
      roles: { type: DataTypes.ARRAY(DataTypes.STRING), allowNull: false, defaultValue: [] },
      is_superuser: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      api_token: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
    },
    { ...common, tableName: 'users' },
  );

  const Order = sequelize.define(
    'Order',
    {
      user_id: foreignKey('users', false, 'RESTRICT'),
      number: { type: DataTypes.STRING(40), allowNull: false, unique: true },
      status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'pending' },
      total: { type: DataTypes.DOUBLE, allowNull: false },
      placed_at: { type: DataTypes.DATE, allowNull: false },
      notes: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
      // decision 81's version field: set to 1 on create and incremented by the library
      version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    },
    { ...common, tableName: 'orders', indexes: [{ fields: ['user_id'] }] },
  );

  const ProductTag = sequelize.define(
    'ProductTag',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      product_id: foreignKey('products', false, 'CASCADE'),
      tag_id: foreignKey('tags', false, 'CASCADE'),
      position: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null },
      note: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
    },
    {
      underscored: true,
      timestamps: false,
      tableName: PIVOT_TABLE,
      indexes: [{ unique: true, fields: ['product_id', 'tag_id'] }, { fields: ['tag_id'] }],
    },
  );

  // Associations name the same keys and rules as the columns, so Sequelize adds nothing of its own
  // (`unique: false`: the pivot already has its unique (product_id, tag_id) index).
  Product.belongsTo(Category, { as: 'category', foreignKey: 'category_id', onDelete: 'RESTRICT' });
  Category.hasMany(Product, { as: 'products', foreignKey: 'category_id', onDelete: 'RESTRICT' });
  Category.belongsTo(Category, { as: 'parent', foreignKey: 'parent_id', onDelete: 'RESTRICT' });
  Category.hasMany(Category, { as: 'children', foreignKey: 'parent_id', onDelete: 'RESTRICT' });
  Product.hasMany(Review, { as: 'reviews', foreignKey: 'product_id', onDelete: 'RESTRICT' });
  Review.belongsTo(Product, { as: 'product', foreignKey: 'product_id', onDelete: 'RESTRICT' });
  Review.belongsTo(User, { as: 'user', foreignKey: 'user_id', onDelete: 'SET NULL' });
  User.hasMany(Review, { as: 'reviews', foreignKey: 'user_id', onDelete: 'SET NULL' });
  Order.belongsTo(User, { as: 'user', foreignKey: 'user_id', onDelete: 'RESTRICT' });
  User.hasMany(Order, { as: 'orders', foreignKey: 'user_id', onDelete: 'RESTRICT' });
  Product.belongsToMany(Tag, { as: 'tags', through: { model: ProductTag, unique: false }, foreignKey: 'product_id', otherKey: 'tag_id', onDelete: 'CASCADE' });
  Tag.belongsToMany(Product, { as: 'products', through: { model: ProductTag, unique: false }, foreignKey: 'tag_id', otherKey: 'product_id', onDelete: 'CASCADE' });

  return { Category, Product, Review, Tag, User, Order, ProductTag };
}
