import { expect } from 'chai';
import { CompileContext } from '../../../drivers/sql/compile-context';
import { compileLinkGuard } from '../../../drivers/sql/compile-link-guard';
import { compilePivotLinks } from '../../../drivers/sql/compile-pivot-sync';
import { relationOf } from '../../../lib/resource/model-lookup';
import { catalog, tables } from './fixture';

const pivot = relationOf(catalog.model('product'), 'tags').pivot!;
const rows = [{ product_id: 7, tag_id: 1, position: 1 }, { product_id: 7, tag_id: 2, position: 2 }];
const c = new CompileContext(catalog, tables, 'pg_c_utf8');

describe('sql compiler: a guarded link (checks as conditions of the link statement)', () => {
  it("the parent's and the related records' scopes become conditions: nothing wanted under an invisible parent, invisible ids left out", () => {
    const guard = compileLinkGuard(c, 'product', 'tags', { parent: { kind: 'condition', field: 'status', operator: '=', value: 'active' }, related: { kind: 'condition', field: 'name', operator: '!=', value: 'hidden' } });
    const { sql, bind } = compilePivotLinks(pivot, 7, rows, 'sync', guard);
    expect(sql).to.match(/^WITH "ok" AS MATERIALIZED \(SELECT 1 FROM "products" AS "g0" WHERE "g0"\."id" = \$1 AND "g0"\."status" = \$3\), "w" AS MATERIALIZED \(/);
    expect(sql).to.include('WHERE EXISTS (SELECT 1 FROM "tags" AS "g1" WHERE "g1"."id" = "v"."tag_id" AND "g1"."name" IS DISTINCT FROM $4 OFFSET 0) AND EXISTS (SELECT 1 FROM "ok"))');
    // a sync's detach is guarded too: an invisible parent keeps its links
    expect(sql).to.include('"d" AS (DELETE FROM "product_tag" AS "t" WHERE "t"."product_id" = $1 AND EXISTS (SELECT 1 FROM "ok") AND NOT EXISTS');
    expect(sql).to.match(/, EXISTS \(SELECT 1 FROM "ok"\) AS "parentVisible", \(SELECT COALESCE\(json_agg\("w"\."tag_id"\), '\[\]'\) FROM "w"\) AS "visible"$/);
    expect(bind).to.deep.equal([7, JSON.stringify(rows), 'active', 'hidden']);
    expect(guard.preparable).to.equal(false); // != is not an equality test
  });

  it('no parent check (the caller is the parent) and no scopes: the related ids must exist, the parent is visible', () => {
    const guard = compileLinkGuard(c, 'product', 'tags', { related: null });
    const { sql, bind } = compilePivotLinks(pivot, 7, rows, 'attach', guard);
    expect(sql).not.to.include('"ok"');
    expect(sql).to.include('WHERE EXISTS (SELECT 1 FROM "tags" AS "g0" WHERE "g0"."id" = "v"."tag_id" OFFSET 0))');
    expect(sql).to.include('TRUE AS "parentVisible"');
    expect(bind).to.have.length(2);
    expect(guard.preparable).to.equal(true);
  });

  it('unguarded (MongoDB-like callers, the checked path): the statement is as before', () => {
    const { sql } = compilePivotLinks(pivot, 7, rows, 'sync');
    expect(sql).not.to.match(/"ok"|parentVisible|"g\d"/);
  });
});
