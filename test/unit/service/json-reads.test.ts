import { expect } from 'chai';
import type { JsonPlan, JsonReads, JsonRows } from '../../../lib/driver/json-read';
import { configFromEnv } from '../../../lib/config';
import type { ListQuery } from '../../../lib/query/ast';
import type { CatalogView } from '../../../lib/service/policy/catalog-view';
import { firstText, listText, showText, type JsonReadHost } from '../../../lib/service/reads/json-reads';
import { createContext } from '../../../lib/service/request-context';

/** The service half of issue 36's fast path: envelopes as text, and every fallback answering null. */
describe('json-reads: envelopes as text and the fallbacks', () => {
  const ctx = createContext({});
  const base: ListQuery = { model: 'product', filter: null, select: null, relations: [], order: [{ relations: [], field: 'id', direction: 'asc' }], page: null, limit: 1001 };
  const row = (id: number): string => `{"id":${id}}`;

  function host(rows: JsonRows | null, options: { hooks?: boolean; log?: string[] } = {}): JsonReadHost {
    const driver = {
      planJson: (query: ListQuery): JsonPlan | null => (rows ? { model: query.model } : null),
      runJson: async (): Promise<JsonRows> => rows as JsonRows,
    } as unknown as JsonReads;
    return {
      json: driver,
      config: configFromEnv({ maxLoadedRecords: 5 }),
      hooksAfter: () => options.hooks === true,
      viewOf: () => ({ open: true }) as CatalogView,
      timed: (action, _query, work) => {
        options.log?.push(action);
        return work();
      },
      notFound: (rawId) => new Error(`missing ${rawId}`),
    };
  }

  it('wraps an offset page in the envelope, keys in listEnvelope order', async () => {
    const query: ListQuery = { ...base, page: { kind: 'offset', page: 2, size: 2 }, limit: null };
    const text = await listText(host({ data: `${row(3)},${row(4)}`, rows: 2, loaded: 0, total: 5 }), { parsed: query, query }, ctx, 'index');
    expect(text).to.equal('{"current_page":2,"data":[{"id":3},{"id":4}],"total":5,"per_page":2,"last_page":3,"from":3,"to":4}');
    const empty = await listText(host({ data: '', rows: 0, loaded: 0, total: 0 }), { parsed: query, query }, ctx, 'index');
    expect(JSON.parse(empty as string)).to.deep.equal({ current_page: 2, data: [], total: 0, per_page: 2, last_page: 1, from: null, to: null });
  });

  it('unpaginated lists answer {data}; one over the cap falls back (the usual path cuts it)', async () => {
    const query: ListQuery = { ...base, limit: 3 };
    expect(await listText(host({ data: `${row(1)},${row(2)}`, rows: 2, loaded: 0 }), { parsed: query, query }, ctx, 'index')).to.equal('{"data":[{"id":1},{"id":2}]}');
    expect(await listText(host({ data: `${row(1)},${row(2)},${row(3)}`, rows: 3, loaded: 0 }), { parsed: query, query }, ctx, 'index')).to.equal(null);
  });

  it('cursor pages: has_more and next_cursor', async () => {
    const query: ListQuery = { ...base, page: { kind: 'cursor', size: 1, after: null }, limit: null };
    const more = JSON.parse((await listText(host({ data: row(1), rows: 1, loaded: 0, hasMore: true, nextAfter: [1] }), { parsed: query, query }, ctx, 'index')) as string);
    expect(Object.keys(more)).to.deep.equal(['data', 'per_page', 'next_cursor', 'has_more']);
    expect(more.has_more).to.equal(true);
    expect(more.next_cursor).to.be.a('string');
    const last = JSON.parse((await listText(host({ data: row(2), rows: 1, loaded: 0, hasMore: false, nextAfter: null }), { parsed: query, query }, ctx, 'index')) as string);
    expect(last).to.deep.equal({ data: [{ id: 2 }], per_page: 1, next_cursor: null, has_more: false });
  });

  it('falls back for afterList/afterShow hooks, a page kind changed by beforeList, and what the driver cannot render', async () => {
    const offset: ListQuery = { ...base, page: { kind: 'offset', page: 1, size: 2 }, limit: null };
    const rows = { data: row(1), rows: 1, loaded: 0, total: 1 };
    expect(await listText(host(rows, { hooks: true }), { parsed: offset, query: offset }, ctx, 'index')).to.equal(null);
    expect(await listText(host(rows), { parsed: offset, query: base }, ctx, 'index')).to.equal(null);
    expect(await listText(host(null), { parsed: offset, query: offset }, ctx, 'index')).to.equal(null);
    expect(await showText(host(rows, { hooks: true }), { rawId: '1', id: 1, query: base }, ctx)).to.equal(null);
  });

  it('a fallback is not logged; a read is logged once under its action', async () => {
    const log: string[] = [];
    await listText(host(null, { log }), { parsed: base, query: base }, ctx, 'index');
    expect(log).to.deep.equal([]);
    await showText(host({ data: row(7), rows: 1, loaded: 0 }, { log }), { rawId: '7', id: 7, query: base }, ctx);
    expect(log).to.deep.equal(['show']);
  });

  it('shows answer the record or 404; /first answers {data}', async () => {
    expect(await showText(host({ data: row(7), rows: 1, loaded: 0 }), { rawId: '7', id: 7, query: base }, ctx)).to.equal('{"id":7}');
    let error: unknown = null;
    await showText(host({ data: '', rows: 0, loaded: 0 }), { rawId: '8', id: 8, query: base }, ctx).catch((e: unknown) => (error = e));
    expect((error as Error).message).to.equal('missing 8');
    const first: ListQuery = { ...base, limit: 1 };
    expect(await firstText(host({ data: '', rows: 0, loaded: 0 }), { parsed: first, query: first }, ctx)).to.equal('{"data":null}');
    expect(await firstText(host({ data: row(1), rows: 1, loaded: 0 }), { parsed: first, query: first }, ctx)).to.equal('{"data":{"id":1}}');
  });

  it('refuses more related records than REST_MAX_LOADED_RECORDS, as checkLoadedSize does', async () => {
    const query: ListQuery = { ...base, relations: [{ name: 'reviews', columns: null, children: [], filter: null }] };
    let error: unknown = null;
    await listText(host({ data: row(1), rows: 1, loaded: 6 }), { parsed: query, query }, ctx, 'index').catch((e: unknown) => (error = e));
    expect((error as { status?: number }).status ?? (error as { statusCode?: number }).statusCode).to.equal(400);
    expect(await listText(host({ data: row(1), rows: 1, loaded: 5 }), { parsed: query, query }, ctx, 'index')).to.equal('{"data":[{"id":1}]}');
  });
});
