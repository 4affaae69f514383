import { expect } from 'chai';
import { DataTypes, Sequelize } from 'sequelize';
import { createSqlDriver } from '../../drivers/sql';
import type { Driver } from '../../lib/driver';
import { hasJsonReads, type HiddenFields, type JsonReads } from '../../lib/driver/json-read';
import { toJson } from '../../lib/service/reads/serialize';
import type { ListQuery, RelationLoad } from '../../lib/query/ast';
import { freshPostgresDatabase } from '../support/databases';
import { describeAll } from '../unit/sql/db-models';

/**
 * Issue 36: the JSON PostgreSQL builds for a read (drivers/sql/compile-json.ts) must mean exactly
 * what the usual path writes for the same query (driver rows, then toJson): every column type,
 * key order, loads of every kind and depth, pages, select, hidden fields, load filters. Compared
 * after one JSON.parse + JSON.stringify of each side (whitespace and number spelling aside).
 */
describe('SQL driver: JSON built by PostgreSQL answers like the usual path', function () {
  this.timeout(60_000);
  let sequelize: Sequelize;
  let driver: Driver & JsonReads;
  let database: { uri: string; drop(): Promise<void> };

  const query = (model: string, over: Partial<ListQuery> = {}): ListQuery => ({
    model, filter: null, select: null, relations: [], order: [{ relations: [], field: 'id', direction: 'asc' }], page: null, limit: null, ...over,
  });
  const load = (name: string, children: RelationLoad[] = [], over: Partial<RelationLoad> = {}): RelationLoad => ({ name, columns: null, children, filter: null, ...over });
  const normal = (json: string): string => JSON.stringify(JSON.parse(json));

  /** Both paths for one query: same rows, same total, and the loaded count checkLoadedSize would make. */
  async function same(q: ListQuery, hidden: HiddenFields | null = null, strip: (row: Record<string, unknown>) => void = () => undefined): Promise<string> {
    const usual = await driver.list(q);
    usual.rows.forEach(strip);
    const fast = await driver.readJson(q, hidden);
    expect(fast, 'renderable').to.not.equal(null);
    expect(normal(`[${fast!.data}]`)).to.equal(normal(toJson(usual.rows)));
    expect(fast!.rows).to.equal(usual.rows.length);
    expect(fast!.total).to.equal(usual.total);
    return fast!.data;
  }

  before(async () => {
    database = await freshPostgresDatabase('jsonreads');
    sequelize = new Sequelize(database.uri, { logging: false, define: { underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' } });
    const Owner = sequelize.define('Owner', { name: { type: DataTypes.STRING } }, { tableName: 'owners' });
    const Item = sequelize.define('Item', {
      owner_id: { type: DataTypes.INTEGER, allowNull: true },
      label: { type: DataTypes.TEXT },
      amount: { type: DataTypes.DECIMAL(14, 4) },
      big: { type: DataTypes.BIGINT },
      ratio: { type: DataTypes.DOUBLE },
      flag: { type: DataTypes.BOOLEAN },
      kind: { type: DataTypes.ENUM('a', 'b') },
      ref: { type: DataTypes.UUID },
      day: { type: DataTypes.DATEONLY },
      at: { type: DataTypes.DATE },
      meta: { type: DataTypes.JSONB },
      counts: { type: DataTypes.ARRAY(DataTypes.INTEGER) },
      words: { type: DataTypes.ARRAY(DataTypes.STRING) },
    }, { tableName: 'items' });
    const Tag = sequelize.define('Tag', { name: { type: DataTypes.STRING } }, { tableName: 'tags' });
    const ItemTag = sequelize.define('ItemTag', { position: { type: DataTypes.INTEGER }, note: { type: DataTypes.STRING } }, { tableName: 'item_tag' });
    Owner.hasMany(Item, { as: 'items', foreignKey: 'owner_id' });
    Owner.hasOne(Item, { as: 'first_item', foreignKey: 'owner_id' });
    Item.belongsTo(Owner, { as: 'owner', foreignKey: 'owner_id' });
    Item.belongsToMany(Tag, { as: 'tags', through: ItemTag, foreignKey: 'item_id', otherKey: 'tag_id' });
    await sequelize.sync({ force: true });
    const created = createSqlDriver(sequelize);
    if (!hasJsonReads(created)) throw new Error('the SQL driver offers readJson');
    driver = created as Driver & JsonReads;
    describeAll(driver, [
      { name: 'owners', MODEL: 'owner', model: Owner, RELATIONS: ['items', 'first_item'], fillable: ['name'] },
      { name: 'items', MODEL: 'item', model: Item, RELATIONS: ['owner', 'tags'], fillable: [] },
      { name: 'tags', MODEL: 'tag', model: Tag, RELATIONS: [], fillable: [] },
    ]);
    await sequelize.query(`INSERT INTO owners (id, name, created_at, updated_at) VALUES (1, 'one', now(), now()), (2, 'two', now(), now()), (3, 'none', now(), now())`);
    await sequelize.query(`
      INSERT INTO items (owner_id, label, amount, big, ratio, flag, kind, ref, day, at, meta, counts, words, created_at, updated_at) VALUES
        (1, 'plain', 10.5, 9007199254740991, 0.1, true, 'a', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2026-02-28',
         '2026-11-23 06:10:00.123999+00', '{"x": [1, "two", null], "y": {"z": true}}', '{1,2,3}', '{"a b","c,d"}', '2026-01-01 00:00:00.000001+00', now()),
        (1, 'ünïcode "quoted" \\ back' || chr(10) || chr(1), -0.0001, -5, 1e300, false, 'b', NULL, '1999-12-31', '1970-01-01 00:00:00+00', '[]', '{}', '{}', '2026-01-01', now()),
        (2, NULL, NULL, NULL, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '0900-05-06 07:08:09.5+00', now()),
        (NULL, 'orphan', 'NaN', 1, '-Infinity', true, 'a', NULL, NULL, NULL, 'null', NULL, NULL, now(), now())`);
    await sequelize.query(`INSERT INTO tags (id, name, created_at, updated_at) VALUES (1, 'red', now(), now()), (2, 'green', now(), now())`);
    await sequelize.query(`INSERT INTO item_tag (item_id, tag_id, position, note, created_at, updated_at) VALUES (1, 2, 1, 'first', now(), now()), (1, 1, 2, NULL, now(), now()), (2, 1, 1, NULL, now(), now())`);
  });

  after(async () => {
    await sequelize?.close();
    await database?.drop();
  });

  it('renders every column type as the usual path writes it', async () => {
    await same(query('item'));
  });

  it('to-many, has-one and to-one loads, nested both ways, with pivots', async () => {
    await same(query('owner', { relations: [load('items'), load('first_item')] }));
    await same(query('item', { relations: [load('owner', [load('items')]), load('tags')] }));
    await same(query('owner', { relations: [load('items', [load('owner'), load('tags')])] }));
  });

  it('puts joined to-one loads first where the usual path joins them (root key order)', async () => {
    const data = await same(query('item', { relations: [load('tags'), load('owner')], limit: 1 }));
    const keys = Object.keys(JSON.parse(data) as object);
    expect(keys.slice(-2)).to.deep.equal(['owner', 'tags']);
  });

  it('offset pages with their total, select, order, filters and load filters', async () => {
    const order = [{ relations: [], field: 'label', direction: 'desc' as const }, { relations: [], field: 'id', direction: 'asc' as const }];
    await same(query('item', { order, page: { kind: 'offset', page: 2, size: 2 }, select: ['label', 'amount'], relations: [load('owner', [], { columns: ['name'] })] }));
    await same(query('item', { filter: { kind: 'condition', field: 'flag', operator: '=', value: true }, page: { kind: 'offset', page: 1, size: 10 } }));
    await same(query('owner', { relations: [load('items', [], { filter: { kind: 'condition', field: 'flag', operator: '=', value: true } })] }));
    await same(query('item', { page: { kind: 'offset', page: 9, size: 10 } }));
  });

  it('leaves hidden fields out at every depth, keys used to attach loads included', async () => {
    const hidden: HiddenFields = { key: {}, of: (model) => (model === 'item' ? new Set(['amount', 'owner_id']) : null) };
    const strip = (row: Record<string, unknown>): void => {
      for (const item of (row.items as Record<string, unknown>[] | undefined) ?? [row]) {
        delete item.amount;
        delete item.owner_id;
      }
    };
    await same(query('item', { relations: [load('owner')] }), hidden, strip);
    await same(query('owner', { relations: [load('items')] }), hidden, strip);
  });

  it('cursor pages: the same rows, has_more and next keys as the usual path, walked to the end', async () => {
    const order = [{ relations: [], field: 'at', direction: 'desc' as const }, { relations: [], field: 'id', direction: 'asc' as const }];
    let after: ListQuery['page'] = { kind: 'cursor', size: 1, after: null };
    for (let i = 0; i < 6 && after; i += 1) {
      const q = query('item', { order, page: after, relations: [load('owner')] });
      const usual = await driver.list(q);
      await same(q);
      const fast = await driver.readJson(q, null);
      expect(fast!.hasMore).to.equal(usual.hasMore);
      expect(toJson(fast!.nextAfter)).to.equal(toJson(usual.nextAfter));
      after = usual.hasMore ? { kind: 'cursor', size: 1, after: usual.nextAfter ?? null } : null;
    }
    expect(after).to.equal(null);
  });

  it('single-record reads: built by the database only when the usual path needs more than one statement', async () => {
    const byId = (relations: RelationLoad[]): ListQuery => query('item', { filter: { kind: 'condition', field: 'id', operator: 'in', value: [1] }, relations });
    expect(await driver.readJson(byId([load('owner')]), null, { single: true })).to.equal(null);
    const fast = await driver.readJson(byId([load('tags')]), null, { single: true });
    expect(fast?.rows).to.equal(1);
  });

  it('counts the related records the loads hold, as the service counts them', async () => {
    const fast = await driver.readJson(query('owner', { relations: [load('items', [load('owner'), load('tags')])] }), null);
    // items 4 (3 owned) ... owners: 3 items, each with its owner (3), tags 3
    expect(fast!.loaded).to.equal(3 + 3 + 3);
  });

  it('caps each to-many load at loadLimit + 1 records', async () => {
    const fast = await driver.readJson(query('owner', { relations: [load('items')], loadLimit: 0 }), null);
    expect(fast!.loaded).to.equal(2);
  });
});
