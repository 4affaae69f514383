import { DataTypes, Sequelize, type Model, type ModelStatic } from 'sequelize';
import type { ResourceDeclaration } from '../../../lib/declaration';
import type { Catalog, ModelInfo } from '../../../lib/resource/model-info';
import type { Driver } from '../../../lib/driver';

/**
 * Small Sequelize models of the example domain for the driver's database tests, with real
 * foreign keys: products.category_id RESTRICT, reviews.product_id CASCADE, reviews.user_id SET NULL,
 * pivot rows CASCADE on both sides.
 */
export interface DbModels {
  sequelize: Sequelize;
  Category: ModelStatic<Model>;
  Product: ModelStatic<Model>;
  Review: ModelStatic<Model>;
  Tag: ModelStatic<Model>;
  User: ModelStatic<Model>;
  ProductTag: ModelStatic<Model>;
  declarations: ResourceDeclaration[];
}

export function defineModels(uri: string, logging: (sql: string) => void): DbModels {
  const sequelize = new Sequelize(uri, {
    logging,
    define: { underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  });
  const Category = sequelize.define('Category', {
    name: { type: DataTypes.STRING(100), allowNull: false },
    parent_id: { type: DataTypes.INTEGER, allowNull: true },
  }, { tableName: 'categories' });
  const Product = sequelize.define('Product', {
    name: { type: DataTypes.STRING(200), allowNull: false },
    sku: { type: DataTypes.STRING, allowNull: false, unique: true },
    price: { type: DataTypes.DECIMAL(12, 2), allowNull: false },
    stock: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    status: { type: DataTypes.ENUM('active', 'inactive', 'draft'), allowNull: false, defaultValue: 'draft' },
    description: { type: DataTypes.TEXT, allowNull: true },
    featured: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    category_id: { type: DataTypes.INTEGER, allowNull: true },
  }, { tableName: 'products' });
  const Review = sequelize.define('Review', {
    product_id: { type: DataTypes.INTEGER, allowNull: false },
    user_id: { type: DataTypes.INTEGER, allowNull: true },
    rating: { type: DataTypes.INTEGER, allowNull: false },
    comment: { type: DataTypes.TEXT, allowNull: true },
  }, { tableName: 'reviews' });
  const Tag = sequelize.define('Tag', {
    name: { type: DataTypes.STRING, allowNull: false, unique: true },
  }, { tableName: 'tags' });
  const User = sequelize.define('User', {
    name: { type: DataTypes.STRING, allowNull: false },
    email: { type: DataTypes.STRING, allowNull: false, unique: true },
    roles: { type: DataTypes.ARRAY(DataTypes.STRING), allowNull: false, defaultValue: [] },
    is_superuser: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    api_token: { type: DataTypes.STRING, allowNull: true },
  }, { tableName: 'users' });
  const ProductTag = sequelize.define('ProductTag', {
    product_id: { type: DataTypes.INTEGER, allowNull: false },
    tag_id: { type: DataTypes.INTEGER, allowNull: false },
    position: { type: DataTypes.INTEGER, allowNull: true },
    note: { type: DataTypes.STRING, allowNull: true },
  }, { tableName: 'product_tag', timestamps: false });

  Category.belongsTo(Category, { as: 'parent', foreignKey: 'parent_id', onDelete: 'RESTRICT' });
  Category.hasMany(Category, { as: 'children', foreignKey: 'parent_id', onDelete: 'RESTRICT' });
  Category.hasMany(Product, { as: 'products', foreignKey: 'category_id', onDelete: 'RESTRICT' });
  Product.belongsTo(Category, { as: 'category', foreignKey: 'category_id', onDelete: 'RESTRICT' });
  Product.hasMany(Review, { as: 'reviews', foreignKey: 'product_id', onDelete: 'CASCADE' });
  Review.belongsTo(Product, { as: 'product', foreignKey: 'product_id', onDelete: 'CASCADE' });
  User.hasMany(Review, { as: 'reviews', foreignKey: 'user_id', onDelete: 'SET NULL' });
  Review.belongsTo(User, { as: 'user', foreignKey: 'user_id', onDelete: 'SET NULL' });
  Product.belongsToMany(Tag, { through: ProductTag, as: 'tags', foreignKey: 'product_id', otherKey: 'tag_id' });
  Tag.belongsToMany(Product, { through: ProductTag, as: 'products', foreignKey: 'tag_id', otherKey: 'product_id' });

  const declarations: ResourceDeclaration[] = [
    { name: 'categories', MODEL: 'category', model: Category, RELATIONS: ['parent', 'children', 'products'], fillable: ['name', 'parent_id'] },
    {
      name: 'products', MODEL: 'product', model: Product, RELATIONS: ['category', 'reviews', 'tags'],
      fillable: ['name', 'sku', 'price', 'stock', 'status', 'description', 'featured', 'category_id'],
    },
    { name: 'reviews', MODEL: 'review', model: Review, RELATIONS: ['product', 'user'], fillable: ['product_id', 'user_id', 'rating', 'comment'] },
    { name: 'tags', MODEL: 'tag', model: Tag, RELATIONS: ['products'], fillable: ['name'] },
    {
      name: 'users', MODEL: 'user', model: User, RELATIONS: ['reviews'], writeOnly: ['api_token'],
      fillable: ['name', 'email', 'roles', 'is_superuser', 'api_token'],
    },
  ];
  return { sequelize, Category, Product, Review, Tag, User, ProductTag, declarations };
}

/** What the registry does, minus the other drivers: describe every declaration, then bind. */
export function describeAll(driver: Driver, declarations: ResourceDeclaration[]): Catalog {
  const byNative = new Map(declarations.map((d) => [(d.model as { name: string }).name, d.MODEL]));
  const infos = new Map<string, ModelInfo>();
  for (const decl of declarations) {
    const described = driver.describe(decl, (n) => byNative.get(n));
    infos.set(decl.MODEL, { ...described, name: decl.MODEL, fillable: decl.fillable, fieldsByRole: {}, hierarchyField: null, softDelete: null, owner: null });
  }
  const catalog: Catalog = {
    model: (name) => {
      const info = infos.get(name);
      if (!info) throw new Error(`unknown model ${name}`);
      return info;
    },
    has: (name) => infos.has(name),
    all: () => [...infos.values()],
  };
  driver.bind(catalog);
  return catalog;
}
