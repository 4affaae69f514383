import { expect } from 'chai';
import { compileUpsert, upsertOutcome } from '../../../drivers/sql/compile-upsert';
import type { StorageInfo } from '../../../drivers/sql';
import type { UpsertChunk } from '../../../lib/driver';

const orders: StorageInfo = { table: 'orders', columns: { id: 'id', code: 'code', status: 'status', note: 'note', version: 'version', updated_at: 'updated_at' }, createdAt: null, updatedAt: 'updated_at' };
const model = { key: 'id', versionField: 'version' };
const chunk = (over: Partial<UpsertChunk> = {}): UpsertChunk => ({ keys: ['code'], matched: [{ code: 'A', status: 'paid' }, { code: 'B', status: 'sent' }], matchedIds: [1, 2], created: [{ code: 'C', status: 'new' }], ...over });

describe('sql compiler: upsert with history (decision 83)', () => {
  it('without history: no before column in any part', () => {
    const s = compileUpsert(orders, model, chunk({ unchangedIds: [3] }), {}, ['status']);
    expect(s.sql).not.to.include('grr_before');
    expect(s.sql).not.to.include('JOIN');
  });

  it('records giving the same fields (plain SETs): the matched rows as they were from a self-join on older servers, NULL for the insert and the unchanged rows', () => {
    const s = compileUpsert(orders, model, chunk({ history: true, unchangedIds: [3] }), {}, ['status']);
    expect(s.sql).to.include('"status" = "m"."status"');
    expect(s.sql).to.include(`FROM json_populate_recordset(NULL::"orders", $1::json) AS "m" JOIN "orders" AS "o" ON "o"."id" = "m"."id" WHERE`);
    expect(s.sql).to.include(`'updated' AS "grr_action", jsonb_build_object('code', "o"."code", 'status', "o"."status", 'version', "o"."version") AS "grr_before")`);
    expect(s.sql).to.include(`END AS "grr_action", NULL::jsonb AS "grr_before")`);
    expect(s.sql).to.include(`'unchanged' AS "grr_action", NULL::jsonb AS "grr_before" FROM "orders"`);
  });

  it("PostgreSQL 18: RETURNING's old, no join; records giving different fields keep their CASE", () => {
    const s = compileUpsert(orders, model, chunk({ history: true, matched: [{ code: 'A', status: 'paid' }, { code: 'B', note: 'x' }] }), {}, [], true);
    expect(s.sql).not.to.include('JOIN');
    expect(s.sql).to.include('CASE WHEN jsonb_exists("m"."j", \'status\')');
    expect(s.sql).to.include(`jsonb_build_object('code', old."code", 'status', old."status", 'note', old."note", 'version', old."version") AS "grr_before")`);
  });

  it('with the column types learned at start: the matched rows as a typed column list; plain-equality fields compared directly, in both halves', () => {
    const typed: StorageInfo = { ...orders, columnTypes: { id: 'integer', code: 'text', status: 'text', note: 'text', version: 'integer', updated_at: 'timestamp with time zone' }, plainEquality: { status: true } };
    const s = compileUpsert(typed, model, chunk(), {}, ['status']);
    expect(s.sql).to.include('FROM json_to_recordset($1::json) AS "m"("id" integer, "status" text) WHERE');
    expect(s.sql).to.include('AND (("m"."status" IS DISTINCT FROM "t"."status"))');
    expect(s.sql).to.include('WHERE EXCLUDED."status" IS DISTINCT FROM "t"."status"');
    // a field without plain equality keeps the JSON comparison
    expect(compileUpsert(typed, model, chunk({ matched: [{ code: 'A', note: 'x' }], matchedIds: [1] }), {}, []).sql).to.include('to_jsonb("m"."note") IS DISTINCT FROM to_jsonb("t"."note")');
  });

  it('the outcome answers each matched row as it was (null: not written), unchanged rows apart', () => {
    const rows = [
      { id: 1, code: 'A', grr_action: 'updated', grr_before: { code: 'A', status: 'open', version: 3 } },
      { id: 3, code: 'Z', grr_action: 'unchanged', grr_before: null },
      { id: 9, code: 'C', grr_action: 'created', grr_before: null },
    ];
    const outcome = upsertOutcome(chunk({ history: true, unchangedIds: [3] }), rows, 'id', 'grr_action', (raw) => ({ id: raw.id }), (old) => ({ ...old }));
    expect(outcome.matched).to.deep.equal(['updated', 'unchanged']);
    expect(outcome.created).to.deep.equal(['created']);
    expect(outcome.before).to.deep.equal([{ code: 'A', status: 'open', version: 3 }, null]);
    expect(outcome.rows?.unchanged).to.deep.equal([{ id: 3 }]);
  });
});
