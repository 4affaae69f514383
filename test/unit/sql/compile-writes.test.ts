import { expect } from 'chai';
import { compileDelete, compileExistingIds, compileInsert, compileUpdate } from '../../../drivers/sql/compile-writes';
import { compileList } from '../../../drivers/sql';
import type { StorageInfo } from '../../../drivers/sql';
import { catalog, listQuery, tables } from './fixture';

const products: StorageInfo = { table: 'products', columns: { id: 'id', name: 'name', price: 'price', note: 'no"te', created_at: 'created_at', updated_at: 'updated_at' }, createdAt: 'created_at', updatedAt: 'updated_at' };

describe('sql compiler: writes', () => {
  it('insert: one prepared statement for every record, values in ONE json parameter, timestamps by the database, ids returned in order', () => {
    const s = compileInsert(products, 'id', [{ name: `'; drop table x; --`, price: 1 }, { name: 'b', price: 2, id: 99, created_at: 'x', unknown: 1 }]);
    expect(s.sql).to.equal(
      'INSERT INTO "products" ("name", "price", "created_at", "updated_at") SELECT "v"."name", "v"."price", date_trunc(\'milliseconds\', now()), date_trunc(\'milliseconds\', now()) ' +
        'FROM json_populate_recordset(NULL::"products", $1::json) WITH ORDINALITY AS "v" ORDER BY "v"."ordinality" RETURNING "id" AS "id"',
    );
    expect(JSON.parse(s.bind[0] as string)).to.deep.equal([{ name: `'; drop table x; --`, price: 1 }, { name: 'b', price: 2 }]);
    // the same text for any values: its plan cannot depend on them
    expect(s.prepare).to.equal(true);
  });

  it('update: one statement whatever the mix of changed fields; absent fields keep their value', () => {
    const s = compileUpdate(products, 'id', [{ id: 1, changes: { price: 5 } }, { id: 2, changes: { note: null, updated_at: 'x' } }]);
    expect(s.sql).to.equal(
      'UPDATE "products" AS "t" SET "price" = CASE WHEN jsonb_exists("u"."j", \'price\') THEN ("u"."r")."price" ELSE "t"."price" END, ' +
        '"no""te" = CASE WHEN jsonb_exists("u"."j", \'no"te\') THEN ("u"."r")."no""te" ELSE "t"."no""te" END, ' +
        // decision 67: updated_at moves only on a row where a sent value differs from the stored one
        '"updated_at" = CASE WHEN (jsonb_exists("u"."j", \'price\') AND to_jsonb(("u"."r")."price") IS DISTINCT FROM to_jsonb("t"."price")) ' +
        'OR (jsonb_exists("u"."j", \'no"te\') AND to_jsonb(("u"."r")."no""te") IS DISTINCT FROM to_jsonb("t"."no""te")) ' +
        'THEN date_trunc(\'milliseconds\', now()) ELSE "t"."updated_at" END ' +
        'FROM (SELECT "e"."j", jsonb_populate_record(NULL::"products", "e"."j") AS "r" FROM jsonb_array_elements($1::jsonb) AS "e"("j")) AS "u" WHERE "t"."id" = ("u"."r")."id" RETURNING "t"."id" AS "id"',
    );
    expect(JSON.parse(s.bind[0] as string)).to.deep.equal([{ id: 1, price: 5 }, { id: 2, 'no"te': null }]);
    expect(s.prepare).to.equal(true);
  });

  it('update of items that all change the same fields: one typed recordset, plain SETs (issue 36)', () => {
    const s = compileUpdate(products, 'id', [{ id: 1, changes: { price: 5, note: 'a' } }, { id: 2, changes: { price: 6, note: null } }]);
    expect(s.sql).to.equal(
      'UPDATE "products" AS "t" SET "price" = "u"."price", "no""te" = "u"."no""te", ' +
        '"updated_at" = CASE WHEN (to_jsonb("u"."price") IS DISTINCT FROM to_jsonb("t"."price")) OR (to_jsonb("u"."no""te") IS DISTINCT FROM to_jsonb("t"."no""te")) ' +
        'THEN date_trunc(\'milliseconds\', now()) ELSE "t"."updated_at" END ' +
        'FROM jsonb_populate_recordset(NULL::"products", $1::jsonb) AS "u" WHERE "t"."id" = "u"."id" RETURNING "t"."id" AS "id"',
    );
    expect(JSON.parse(s.bind[0] as string)).to.deep.equal([{ id: 1, price: 5, 'no"te': 'a' }, { id: 2, price: 6, 'no"te': null }]);
  });

  it('with the column types learned at start, a uniform update reads a typed column list of only its columns (json_to_recordset)', () => {
    const typed: StorageInfo = { ...products, columnTypes: { id: 'integer', price: 'double precision', 'no"te': 'character varying(255)', version: 'integer' } };
    const s = compileUpdate(typed, 'id', [{ id: 1, changes: { price: 5, note: 'a' } }, { id: 2, changes: { price: 6, note: null } }]);
    expect(s.sql).to.contain('FROM json_to_recordset($1::json) AS "u"("id" integer, "price" double precision, "no""te" character varying(255)) WHERE "t"."id" = "u"."id"');
    expect(JSON.parse(s.bind[0] as string)).to.deep.equal([{ id: 1, price: 5, 'no"te': 'a' }, { id: 2, price: 6, 'no"te': null }]);
    // the version column (decision 81) is one of the typed columns
    expect(compileUpdate({ ...typed, columns: { ...typed.columns, version: 'version' } }, 'id', [{ id: 1, changes: { price: 5 }, expected: 3 }], undefined, ['id'], 'version').sql).to.contain('AS "u"("id" integer, "price" double precision, "version" integer)');
    // a column whose type is unknown, or items that change different fields: the untyped forms
    expect(compileUpdate({ ...typed, columnTypes: { id: 'integer' } }, 'id', [{ id: 1, changes: { price: 5 } }]).sql).to.contain('jsonb_populate_recordset(NULL::"products", $1::jsonb)');
    expect(compileUpdate(typed, 'id', [{ id: 1, changes: { price: 5 } }, { id: 2, changes: { note: 'b' } }]).sql).to.contain('jsonb_array_elements($1::jsonb)');
  });

  it('the dirty check compares fields of a plain-equality type directly, the others through to_jsonb', () => {
    const s = compileUpdate({ ...products, plainEquality: { price: true } }, 'id', [{ id: 1, changes: { price: 5, note: 'a' } }]);
    expect(s.sql).to.contain('CASE WHEN ("u"."price" IS DISTINCT FROM "t"."price") OR (to_jsonb("u"."no""te") IS DISTINCT FROM to_jsonb("t"."no""te")) THEN');
    const mixed = compileUpdate({ ...products, plainEquality: { price: true } }, 'id', [{ id: 1, changes: { price: 5 } }, { id: 2, changes: { note: 'b' } }]);
    expect(mixed.sql).to.contain('(jsonb_exists("u"."j", \'price\') AND ("u"."r")."price" IS DISTINCT FROM "t"."price")');
  });

  it('an update of the same shape reuses its text; the rows are JSON like JSON.stringify makes (non-finite numbers null, dates ISO)', () => {
    const at = new Date('2026-11-29T02:00:00.123Z');
    const a = compileUpdate(products, 'id', [{ id: 1, changes: { price: 5, note: 'a"b' } }]);
    const b = compileUpdate(products, 'id', [{ id: 2, changes: { price: Number.NaN, note: null } }, { id: 3, changes: { price: 1.5, note: at } }]);
    expect(b.sql).to.equal(a.sql);
    expect(b.bind[0]).to.equal(JSON.stringify([{ id: 2, price: null, 'no"te': null }, { id: 3, price: 1.5, 'no"te': at }]));
    expect(JSON.parse(a.bind[0] as string)).to.deep.equal([{ id: 1, price: 5, 'no"te': 'a"b' }]);
    // another shape, another text
    expect(compileUpdate(products, 'id', [{ id: 1, changes: { price: 5 } }]).sql).to.not.equal(a.sql);
    expect(compileUpdate(products, 'id', [{ id: 1, changes: { price: 5, note: 'a' } }], { field: 'note', isNull: true }).sql).to.not.equal(a.sql);
  });

  it('delete and existence checks take the ids as one array parameter', () => {
    expect(compileDelete(products, 'id', [1, 2])).to.deep.equal({ sql: 'DELETE FROM "products" WHERE "id" = ANY($1) RETURNING "id" AS "id"', bind: [[1, 2]] });
    expect(compileExistingIds(products, 'id', [3])).to.deep.equal({ sql: 'SELECT "id" AS "id" FROM "products" WHERE "id" = ANY($1)', bind: [[3]], prepare: true });
  });

  it('a delete for history answers the removed rows whole (decision 83), its columns named by position, values still one parameter', () => {
    expect(compileDelete(products, 'id', [1], ['name', 'no"te'])).to.deep.equal({ sql: 'DELETE FROM "products" WHERE "id" = ANY($1) RETURNING "id" AS "id", "name" AS "grr_c0", "no""te" AS "grr_c1"', bind: [[1]] });
  });

  it('enum/uuid columns are compared as text in filters and sort keys', () => {
    const cast = { ...tables, product: { ...tables.product, textCasts: { status: 'text' as const } } };
    const q = compileList(listQuery({ select: ['status'], filter: { kind: 'condition', field: 'status', operator: 'like', value: 'a%' }, order: [{ relations: [], field: 'status', direction: 'asc' }] }), catalog, cast);
    expect(q.rows.sql).to.equal(
      `SELECT "t0"."id" AS "id", "t0"."status" AS "status", "t0"."status" AS "__k0" FROM "products" AS "t0" WHERE "t0"."status"::text LIKE $1 ESCAPE '' ORDER BY "t0"."status"::text COLLATE "C" ASC NULLS FIRST`,
    );
  });
});
