import type { ResourceHooks } from '../lib';
import type { RelationRoutesOptions } from '../lib/relations/relation-config';
import type { RelationDeclaration, ResourceDeclaration } from '../lib/declaration';
import { hashToken } from './auth';
import type { MongoModels } from './mongo/models';
import type { SqlModels } from './sql/models';
import { categorySchemas, orderSchemas, productSchemas, reviewSchemas, tagSchemas, userSchemas, type DriverName } from './validation';

/**
 * The six resources of the demo shop, declared the same way on both drivers. Relations are
 * spelled out even though the drivers can derive them (mongoose refs, Sequelize associations):
 * the declarations are the single place where the delete rules live for MongoDB, which has no
 * foreign keys, and they must match the SQL constraints in sql/models.ts.
 */

const PIVOT = 'product_tag';

/** product <-> tag through the pivot; `note` is readable in `pivot` but written only by relation routes that allow it. */
const productTags: RelationDeclaration = {
  kind: 'belongsToMany',
  target: 'tag',
  foreignKey: 'product_id',
  pivot: { table: PIVOT, parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer', note: 'string' } },
};

const tagProducts: RelationDeclaration = {
  kind: 'belongsToMany',
  target: 'product',
  foreignKey: 'tag_id',
  pivot: { table: PIVOT, parentKey: 'tag_id', relatedKey: 'product_id', columns: ['position', 'note'], columnTypes: { position: 'integer', note: 'string' } },
};

/** Only a hash of each api token is stored; cached logins are forgotten after any write to users. */
function tokenHooks(forget: () => void): ResourceHooks {
  const hashed = (record: Record<string, unknown>) =>
    typeof record.api_token === 'string' && record.api_token !== '' ? { ...record, api_token: hashToken(record.api_token) } : record;
  return {
    beforeCreate: (records) => records.map(hashed),
    beforeUpdate: (items) => items.map((item) => ({ ...item, changes: hashed(item.changes) })),
    afterCreate: () => forget(),
    afterUpdate: () => forget(),
    afterDelete: () => forget(),
  };
}

export function exampleResources(models: MongoModels | SqlModels, driver: DriverName, forgetLogins: () => void = () => undefined): ResourceDeclaration[] {
  const userHooks = tokenHooks(forgetLogins);
  const category = categorySchemas(driver);
  const product = productSchemas(driver);
  const review = reviewSchemas(driver);
  const tag = tagSchemas();
  const user = userSchemas();
  const order = orderSchemas(driver);

  return [
    {
      name: 'categories',
      MODEL: 'category',
      model: models.Category,
      RELATIONS: ['parent', 'children', 'products'],
      relations: {
        parent: { kind: 'belongsTo', target: 'category', foreignKey: 'parent_id', onDelete: 'restrict' },
        children: { kind: 'hasMany', target: 'category', foreignKey: 'parent_id' },
        products: { kind: 'hasMany', target: 'product', foreignKey: 'category_id' },
      },
      fillable: ['name', 'parent_id'],
      HIERARCHY_FIELD_ID: 'parent_id',
      validation: category,
    },
    {
      name: 'products',
      imports: true,
      MODEL: 'product',
      model: models.Product,
      RELATIONS: ['category', 'reviews', 'tags'],
      relations: {
        category: { kind: 'belongsTo', target: 'category', foreignKey: 'category_id', onDelete: 'restrict' },
        reviews: { kind: 'hasMany', target: 'review', foreignKey: 'product_id' },
        tags: productTags,
      },
      fillable: ['name', 'sku', 'price', 'cost', 'stock', 'status', 'description', 'featured', 'category_id'],
      // writable only by holders of the role; `cost` is also readable only by admin and editor (auth.ts grants)
      fieldsByRole: { admin: ['featured', 'status', 'cost'], editor: ['status'] },
      validation: product,
      // decision 58: a product is written with its reviews and its tags (pivot position and note) in one request
      nestedWrites: ['reviews', 'tags'],
      // decision 79: POST /products/upsert matches by sku (unique on both drivers)
      upsertKeys: [['sku']],
    },
    {
      name: 'reviews',
      imports: true,
      MODEL: 'review',
      model: models.Review,
      RELATIONS: ['product', 'user'],
      relations: {
        product: { kind: 'belongsTo', target: 'product', foreignKey: 'product_id', onDelete: 'restrict' },
        // Deleting a user keeps their reviews, without an author.
        user: { kind: 'belongsTo', target: 'user', foreignKey: 'user_id', onDelete: 'setNull' },
      },
      fillable: ['product_id', 'user_id', 'rating', 'comment'],
      owner: 'user_id',
      softDelete: true,
      validation: review,
    },
    {
      name: 'tags',
      MODEL: 'tag',
      model: models.Tag,
      RELATIONS: ['products'],
      relations: { products: tagProducts },
      fillable: ['name'],
      validation: tag,
      upsertKeys: [['name']],
    },
    {
      name: 'orders',
      imports: true,
      MODEL: 'order',
      model: models.Order,
      RELATIONS: ['user'],
      relations: {
        // a user with orders cannot be deleted (the SQL constraint says the same)
        user: { kind: 'belongsTo', target: 'user', foreignKey: 'user_id', onDelete: 'restrict' },
      },
      // placed_at is fillable: orders are often imported from elsewhere; version is the library's
      fillable: ['user_id', 'number', 'status', 'total', 'placed_at', 'notes'],
      owner: 'user_id',
      validation: order,
      upsertKeys: [['number']],
      versionField: 'version',
      // decision 83: who changed what and when, readable under the read policy, with revert
      history: true,
    },
    {
      name: 'users',
      MODEL: 'user',
      model: models.User,
      RELATIONS: ['reviews'],
      relations: {
        reviews: { kind: 'hasMany', target: 'review', foreignKey: 'user_id' },
      },
      fillable: ['name', 'email', 'roles', 'is_superuser', 'api_token'],
      writeOnly: ['api_token'],
      owner: 'id',
      // no user holds a role named superuser: only a superuser (who bypasses field rules) can make another
      fieldsByRole: { admin: ['roles'], superuser: ['is_superuser'] },
      // decision 68: an admin grants the four roles of the shop; only a superuser grants anything else
      grantableRoles: { admin: ['viewer', 'customer', 'editor', 'admin'] },
      validation: user,
      hooks: userHooks,
    },
  ];
}

/** The relation routes of example-app.md: products' reviews and tags, and the caller's reviews under /me. */
export const exampleRelationRoutes: Record<string, RelationRoutesOptions> = {
  product: {
    oneToMany: { reviews: { relationship: 'reviews', foreignKey: 'product_id', localKey: 'id', mutation: { dataKey: 'reviews', deleteRelated: true } } },
    manyToMany: {
      tags: { relationship: 'tags', pivotModel: PIVOT, parentKey: 'product_id', relatedKey: 'tag_id', mutation: { dataKey: 'tags', deleteRelated: false, pivotColumns: ['position'] } },
    },
  },
  user: {
    oneToMany: { reviews: { relationship: 'reviews', foreignKey: 'user_id', mutation: { dataKey: 'reviews' } } },
    implicitParent: { prefix: 'me', explicit: false },
  },
};
