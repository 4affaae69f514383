import { expect } from 'chai';
import { DataTypes, Sequelize } from 'sequelize';
import { createSqlDriver } from '../../drivers/sql';
import type { Driver } from '../../lib/driver';
import { toJson } from '../../lib/service/reads/serialize';
import type { ListQuery, RelationLoad } from '../../lib/query/ast';
import { freshPostgresDatabase } from '../support/databases';
import { describeAll } from '../unit/sql/db-models';

/**
 * To-many loads embedded as JSON (drivers/sql/compile-embeds.ts) must answer exactly what the same
 * rows read directly answer: every column type through JSON (timestamps with microseconds, numeric,
 * bigint, float, boolean, enum, uuid, date-only, JSONB, arrays, nulls, unicode) comes out as pg's
 * own text values do.
 */
describe('SQL driver: embedded to-many loads answer like direct reads', function () {
  this.timeout(60_000);
  let sequelize: Sequelize;
  let driver: Driver;
  let database: { uri: string; drop(): Promise<void> };

  const query = (model: string, over: Partial<ListQuery> = {}): ListQuery => ({
    model, filter: null, select: null, relations: [], order: [{ relations: [], field: 'id', direction: 'asc' }], page: null, limit: null, ...over,
  });
  const load = (name: string, children: RelationLoad[] = []): RelationLoad => ({ name, columns: null, children, filter: null });

  before(async () => {
    database = await freshPostgresDatabase('embedded');
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
    Owner.hasMany(Item, { as: 'items', foreignKey: 'owner_id' });
    Owner.hasOne(Item, { as: 'first_item', foreignKey: 'owner_id' });
    Item.belongsTo(Owner, { as: 'owner', foreignKey: 'owner_id' });
    await sequelize.sync({ force: true });
    driver = createSqlDriver(sequelize);
    describeAll(driver, [
      { name: 'owners', MODEL: 'owner', model: Owner, RELATIONS: ['items', 'first_item'], fillable: ['name'] },
      { name: 'items', MODEL: 'item', model: Item, RELATIONS: ['owner'], fillable: [] },
    ]);
    await sequelize.query(`INSERT INTO owners (id, name, created_at, updated_at) VALUES (1, 'one', now(), now()), (2, 'two', now(), now()), (3, 'none', now(), now())`);
    await sequelize.query(`
      INSERT INTO items (owner_id, label, amount, big, ratio, flag, kind, ref, day, at, meta, counts, words, created_at, updated_at) VALUES
        (1, 'plain', 10.5, 9007199254740993, 0.1, true, 'a', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2026-02-28',
         '2026-11-23 06:10:00.123999+00', '{"x": [1, "two", null], "y": {"z": true}}', '{1,2,3}', '{"a b","c,d"}', '2026-01-01 00:00:00.000001+00', now()),
        (1, 'ünïcode "quoted" \\ back', -0.0001, -5, 1e300, false, 'b', NULL, '1999-12-31', '1970-01-01 00:00:00+00', '[]', '{}', '{}', '2026-01-01', now()),
        (2, NULL, NULL, NULL, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '0900-05-06 07:08:09.5+00', now())`);
  });

  after(async () => {
    await sequelize?.close();
    await database?.drop();
  });

  it('each owner carries its items exactly as reading the items themselves gives them', async () => {
    const owners = await driver.list(query('owner', { relations: [load('items')] }));
    const items = await driver.list(query('item'));
    expect(owners.rows.map((o) => (o.items as unknown[]).length)).to.deep.equal([2, 1, 0]);
    for (const owner of owners.rows) {
      const direct = items.rows.filter((i) => i.owner_id === owner.id);
      expect(toJson(owner.items)).to.equal(toJson(direct));
    }
    const first = (owners.rows[0].items as Record<string, unknown>[])[0];
    expect(first.at).to.be.instanceOf(Date);
    expect(toJson(first.at)).to.equal('"2026-11-23T06:10:00.123000Z"');
  });

  it('matches the statement form too (a load below the items keeps them in a statement of their own)', async () => {
    const embedded = await driver.list(query('owner', { relations: [load('items')] }));
    const separate = await driver.list(query('owner', { relations: [load('items', [load('owner')])] }));
    const strip = (rows: Record<string, unknown>[]) => rows.map((o) => ({ ...o, items: (o.items as Record<string, unknown>[]).map(({ owner: _owner, ...rest }) => rest) }));
    expect(toJson(strip(separate.rows))).to.equal(toJson(embedded.rows));
  });

  it('hasOne: the first related record by key, or null, as the statement form gives it', async () => {
    const embedded = await driver.list(query('owner', { relations: [load('first_item')] }));
    const separate = await driver.list(query('owner', { relations: [load('first_item', [load('owner')])] }));
    expect(embedded.rows.map((o) => (o.first_item as { label?: unknown } | null)?.label ?? null)).to.deep.equal(['plain', null, null]);
    expect(embedded.rows[2].first_item).to.equal(null);
    const strip = (rows: Record<string, unknown>[]) => rows.map((o) => ({ ...o, first_item: o.first_item ? { ...(o.first_item as object), owner: undefined } : null }));
    expect(toJson(strip(separate.rows))).to.equal(toJson(embedded.rows));
  });

  it('cursor pages in a mixed order (string descending, key ascending) walk the same rows as the statement form', async () => {
    const order = [{ relations: [], field: 'name', direction: 'desc' as const }, { relations: [], field: 'id', direction: 'asc' as const }];
    const walk = async (loads: RelationLoad[]): Promise<string[]> => {
      const seen: string[] = [];
      let after: unknown[] | null = null;
      for (let i = 0; i < 10; i += 1) {
        const page = await driver.list(query('owner', { relations: loads, order, page: { kind: 'cursor', size: 1, after: after as never } }));
        for (const row of page.rows) seen.push(`${row.name}:${(row.items as unknown[]).length}`);
        if (!page.hasMore) break;
        after = page.nextAfter ?? null;
      }
      return seen;
    };
    const embedded = await walk([load('items')]);
    expect(embedded).to.deep.equal(['two:1', 'one:2', 'none:0']);
    expect(await walk([load('items', [load('owner')])])).to.deep.equal(embedded);
  });

  it('an offset page embeds for its own rows only and keeps its order', async () => {
    const page = await driver.list(query('owner', { relations: [load('items')], order: [{ relations: [], field: 'id', direction: 'desc' }], page: { kind: 'offset', page: 2, size: 1 } }));
    expect(page.rows.map((o) => [o.id, (o.items as unknown[]).length])).to.deep.equal([[2, 1]]);
    expect(page.total).to.equal(3);
  });
});
