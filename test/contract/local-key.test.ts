import { expect } from 'chai';
import { API, expectError, forEachDriver, type LocalKeyApp, type Rec } from '../support/contract-app';

/**
 * The second model pair (test/support/contract-app.ts `localKeyApp`): a has-many on a key column
 * of the parent other than its primary key (spec: localKey is "key column in the parent table"),
 * on relation routes, eager loading and relation filters; `pivotColumns: []` meaning every pivot
 * column; a missing required field of a resource without a validation schema.
 */
forEachDriver('local key, empty pivotColumns, required fields without a schema', (ctx) => {
  let lk: LocalKeyApp;
  const req = () => lk.request();
  const create = async (resource: string, body: Record<string, unknown>): Promise<Rec> => {
    const res = await req().post(`${API}/${resource}`).send(body);
    expect(res.status, res.text).to.equal(200);
    return res.body.model as Rec;
  };
  let a: Rec;
  let b: Rec;

  beforeEach(async () => {
    lk = await ctx.localKeyApp();
    await lk.reset();
    a = await create('shelves', { code: 'A-1', name: 'Shelf A' });
    b = await create('shelves', { code: 'B-2', name: 'Shelf B' });
    await create('books', { title: 'One', shelf_code: 'A-1' });
    await create('books', { title: 'Two', shelf_code: 'A-1' });
    await create('books', { title: 'Three', shelf_code: 'B-2' });
    await create('books', { title: 'Loose', shelf_code: null });
  });

  const titles = (rows: unknown) => (rows as Rec[]).map((r) => r.title).sort();

  it('eager loading matches books.shelf_code to shelves.code (also with a column selection)', async () => {
    const all = await req().get(`${API}/shelves`).query({ relations: 'books' });
    expect(all.status, all.text).to.equal(200);
    const byCode = Object.fromEntries((all.body.data as Rec[]).map((s) => [s.code, titles(s.books)]));
    expect(byCode).to.deep.equal({ 'A-1': ['One', 'Two'], 'B-2': ['Three'] });
    // the parent's localKey is added to a column selection, as foreign keys are
    const narrow = await req().get(`${API}/shelves/${a.id}`).query({ select: 'name', relations: 'books:title' });
    expect(narrow.status, narrow.text).to.equal(200);
    expect(titles(narrow.body.books)).to.deep.equal(['One', 'Two']);
    // a has-one on the same link loads one record, and sorts the parents
    const sorted = await req().get(`${API}/shelves`).query({ relations: 'first_book:title', orderby: JSON.stringify([{ 'first_book.title': 'desc' }]) });
    expect(sorted.status, sorted.text).to.equal(200);
    expect((sorted.body.data as Rec[]).map((s) => [s.code, (s.first_book as Rec).title])).to.deep.equal([
      ['B-2', 'Three'],
      ['A-1', 'One'],
    ]);
    // relation filters use the same link
    const filtered = await req().get(`${API}/shelves`).query({ oper: JSON.stringify({ books: { and: ['title|=|Three'] } }) });
    expect((filtered.body.data as Rec[]).map((s) => s.code)).to.deep.equal(['B-2']);
  });

  it('relation routes list, show, create, update and delete through the localKey', async () => {
    const list = await req().get(`${API}/shelves/${a.id}/books`);
    expect(list.status, list.text).to.equal(200);
    expect(titles(list.body.data)).to.deep.equal(['One', 'Two']);
    const paged = await req().get(`${API}/shelves/${a.id}/books`).query({ pagination: JSON.stringify({ page: 1, pageSize: 1 }) });
    expect(paged.body).to.include({ total: 2, per_page: 1 });
    // create: the foreign key is the parent's code whatever the body says
    const made = await req().post(`${API}/shelves/${a.id}/books`).send({ books: { title: 'Four', shelf_code: 'B-2' } });
    expect(made.status, made.text).to.equal(201);
    expect(made.body.model).to.include({ title: 'Four', shelf_code: 'A-1' });
    const three = (await req().get(`${API}/shelves/${b.id}/books`)).body.data[0] as Rec;
    const shown = await req().get(`${API}/shelves/${b.id}/books/${three.id}`);
    expect(shown.status, shown.text).to.equal(200);
    expect(shown.body.title).to.equal('Three');
    // a book of another shelf is a relation 404 here
    const absent = expectError(await req().get(`${API}/shelves/${a.id}/books/${three.id}`), 404, 'not_found');
    expect((absent.error as Rec).id).to.equal(three.id);
    const updated = await req().put(`${API}/shelves/${b.id}/books/${three.id}`).send({ books: { title: 'Three bis' } });
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body.model).to.include({ title: 'Three bis', shelf_code: 'B-2' });
    expectError(await req().put(`${API}/shelves/${a.id}/books/${three.id}`).send({ books: { title: 'x' } }), 404, 'not_found');
    const deleted = await req().delete(`${API}/shelves/${b.id}/books/${three.id}`);
    expect(deleted.status, deleted.text).to.equal(200);
    expect((await req().get(`${API}/shelves/${b.id}/books`)).body.data).to.deep.equal([]);
    expect(titles((await req().get(`${API}/shelves/${a.id}/books`)).body.data)).to.deep.equal(['Four', 'One', 'Two']);
  });

  it('the relation export lists the parent\'s books through the localKey', async () => {
    const res = await req()
      .get(`${API}/shelves/${a.id}/books/export/excel`)
      .query({ columns: 'title', orderby: JSON.stringify([{ title: 'asc' }]) })
      .buffer(true)
      .parse(((stream: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      }) as never);
    expect(res.status).to.equal(200);
    const ExcelJS = (await import('exceljs')).default;
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.body as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    workbook.worksheets[0].eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    expect(rows).to.deep.equal([['title'], ['One'], ['Two']]);
  });

  it('pivotColumns: [] accepts every pivot column (the spec: empty means all)', async () => {
    const label = await create('labels', { name: 'red' });
    const attach = await req().post(`${API}/shelves/${a.id}/labels/attach`).query({ _scenario: 'attach' }).send({ label_id: label.id, position: 3, note: 'kept' });
    expect(attach.status, attach.text).to.equal(200);
    expect(attach.body).to.deep.equal({ attached: [label.id] });
    const list = await req().get(`${API}/shelves/${a.id}/labels`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body.data[0].pivot).to.include({ position: 3, note: 'kept' });
    const pivot = await req().put(`${API}/shelves/${a.id}/labels/${label.id}/pivot`).send({ position: 4, note: 'changed' });
    expect(pivot.status, pivot.text).to.equal(200);
    expect(pivot.body.pivot).to.include({ position: 4, note: 'changed' });
  });

  it('a missing required field of a resource without a schema is not_null_violation naming it, on both drivers', async () => {
    const res = await req().post(`${API}/books`).send({ shelf_code: 'A-1' });
    const body = expectError(res, 422, 'not_null_violation');
    expect(body.field).to.equal('title');
    expect(body.message).to.equal('The title field is required.');
    const nulled = await req().put(`${API}/books/${(await create('books', { title: 'Five' })).id}`).send({ title: null });
    expect(expectError(nulled, 422, 'not_null_violation').field).to.equal('title');
  });
});
