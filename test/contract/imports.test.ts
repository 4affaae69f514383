import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { API, encodeParams, expectError, forEachDriver, type Member, type Rec } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';
import type { Sequelize } from 'sequelize';
import type { Connection } from 'mongoose';
import type { AddressInfo } from 'node:net';

/** POST /{resource}/import (decision 82) on both drivers: products, reviews, orders. */
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const binary = (res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void): void => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

/** RFC 4180 text of rows (every cell quoted when needed). */
const csv = (rows: unknown[][]): string =>
  rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : /[",\n\r]/.test(String(c)) ? `"${String(c).replace(/"/g, '""')}"` : String(c))).join(',')).join('\r\n') + '\r\n';

async function xlsx(rows: unknown[][], formula?: { row: number; col: number; formula: string; result: unknown }): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Sheet1');
  for (const r of rows) sheet.addRow(r);
  if (formula) sheet.getCell(formula.row, formula.col).value = { formula: formula.formula, result: formula.result } as ExcelJS.CellFormulaValue;
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function sheetRows(body: Buffer): Promise<Array<{ values: unknown[]; types: number[] }>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ArrayBuffer);
  const rows: Array<{ values: unknown[]; types: number[] }> = [];
  workbook.worksheets[0].eachRow((row) => {
    const types: number[] = [];
    row.eachCell({ includeEmpty: true }, (cell) => types.push(cell.type));
    rows.push({ values: (row.values as unknown[]).slice(1), types });
  });
  return rows;
}

/** The events of a text/event-stream body. */
function events(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Record<string, unknown>;
      return { event, data };
    });
}

forEachDriver('imports', (ctx) => {
  let editor: Member;
  let viewer: Member;
  let carol: Member;
  let dave: Member;
  const tag = `imp${Date.now()}`;

  before(async () => {
    await ctx.reset();
    editor = await ctx.member(['editor']);
    viewer = await ctx.member(['viewer']);
    carol = await ctx.member(['customer']);
    dave = await ctx.member(['customer']);
  });

  const importCsv = (resource: string, text: string | Buffer, query: Record<string, string> = {}, agent = ctx.request()) =>
    agent.post(`${API}/${resource}/import`).query(query).set('Content-Type', 'text/csv').send(typeof text === 'string' ? text : text.toString('utf8'));
  const countSku = (prefix: string) => ctx.count('products', { oper: { and: [`sku|like|${prefix}%`] } });

  it('imports a CSV (BOM, quoted cells, casts), answers the summary and writes the records', async () => {
    const p = ctx.unique('c');
    const text = '\ufeff' + csv([
      ['name', 'sku', 'price', 'stock', 'description'],
      [`Lamp, "big" ${tag}`, `${p}-1`, '12.5', '3', 'line one\nline two'],
      [`Chair ${tag}`, `${p}-2`, '7', '0', ''],
    ]);
    const res = await importCsv('products', text);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ rows: 2, created: 2, updated: 0, unchanged: 0, skipped: 0, errors: [] });
    const list = await ctx.get('/products', { oper: { and: [`sku|like|${p}%`] }, orderby: [{ sku: 'asc' }] });
    const rows = list.body.data as Rec[];
    expect(rows.map((r) => [r.name, r.price, r.stock, r.description])).to.deep.equal([
      [`Lamp, "big" ${tag}`, 12.5, 3, 'line one\nline two'],
      [`Chair ${tag}`, 7, 0, null],
    ]);
  });

  it('imports an XLSX as the raw body and as the file part of multipart/form-data', async () => {
    const p = ctx.unique('x');
    const body = await xlsx([['name', 'sku', 'price', 'featured'], [`X1 ${tag}`, `${p}-1`, 4, true], [`X2 ${tag}`, `${p}-2`, 5.25, 'false']]);
    const raw = await ctx.request().post(`${API}/products/import`).set('Content-Type', XLSX).send(body);
    expect(raw.status, raw.text).to.equal(200);
    expect(raw.body).to.include({ rows: 2, created: 2 });
    const q = ctx.unique('m');
    const multi = await ctx.request().post(`${API}/products/import`).attach('file', Buffer.from(csv([['name', 'sku', 'price'], [`M ${tag}`, `${q}-1`, '1']])), { filename: 'p.csv', contentType: 'text/csv' });
    expect(multi.status, multi.text).to.equal(200);
    expect(multi.body).to.include({ rows: 1, created: 1 });
    const multiX = await ctx.request().post(`${API}/products/import`).attach('file', await xlsx([['name', 'sku', 'price'], [`MX ${tag}`, `${q}-2`, 2]]), { filename: 'p.xlsx', contentType: XLSX });
    expect(multiX.status, multiX.text).to.equal(200);
    expect(await countSku(p)).to.equal(2);
    expect(await countSku(q)).to.equal(2);
    const featured = await ctx.get('/products', { oper: { and: [`sku|=|${p}-1`] } });
    expect((featured.body.data as Rec[])[0]).to.include({ featured: true, price: 4 });
  });

  it('round trip: the default export imports back into an emptied table as the same records', async () => {
    const p = ctx.unique('rt');
    const category = await ctx.category({ name: ctx.unique('rtcat') });
    for (let i = 0; i < 5; i += 1) await ctx.product({ name: `RT ${i} ${tag}`, sku: `${p}-${i}`, price: i + 0.25, stock: i, featured: i % 2 === 0, category_id: category.id, description: i === 1 ? '=HYPERLINK("http://x")' : null });
    const oper = { and: [`sku|like|${p}%`] };
    const exported = await ctx.request().get(`${API}/products/export/excel`).query(encodeParams({ oper, orderby: [{ sku: 'asc' }] })).buffer(true).parse(binary as never);
    expect(exported.status).to.equal(200);
    const before = (await ctx.get('/products', { oper, orderby: [{ sku: 'asc' }] })).body.data as Rec[];
    const del = await ctx.request().delete(`${API}/products/batch`).send({ ids: before.map((r) => r.id) });
    expect(del.status, del.text).to.equal(200);
    const res = await ctx.request().post(`${API}/products/import`).set('Content-Type', XLSX).send(exported.body as Buffer);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ rows: 5, created: 5, skipped: 0 });
    const after = (await ctx.get('/products', { oper, orderby: [{ sku: 'asc' }] })).body.data as Rec[];
    const strip = (r: Rec) => Object.fromEntries(Object.entries(r).filter(([k]) => !['id', 'created_at', 'updated_at'].includes(k)));
    expect(after.map(strip)).to.deep.equal(before.map(strip));
  });

  it('a cell is data, never a formula: stored as text and exported as a text cell; an xlsx formula gives its cached value', async () => {
    const p = ctx.unique('f');
    const text = csv([['name', 'sku', 'price', 'description'], ['=HYPERLINK("http://evil","x")', `${p}-1`, '1', '+1'], ['@SUM(A1:A2)', `${p}-2`, '1', '-2+3']]);
    const res = await importCsv('products', text);
    expect(res.status, res.text).to.equal(200);
    const rows = (await ctx.get('/products', { oper: { and: [`sku|like|${p}%`] }, orderby: [{ sku: 'asc' }] })).body.data as Rec[];
    expect(rows.map((r) => [r.name, r.description])).to.deep.equal([['=HYPERLINK("http://evil","x")', '+1'], ['@SUM(A1:A2)', '-2+3']]);
    const exported = await ctx.request().get(`${API}/products/export/excel`).query(encodeParams({ oper: { and: [`sku|like|${p}%`] }, orderby: [{ sku: 'asc' }], columns: 'name,description' })).buffer(true).parse(binary as never);
    const sheet = await sheetRows(exported.body as Buffer);
    expect(sheet[1].values).to.deep.equal(['=HYPERLINK("http://evil","x")', '+1']);
    // ExcelJS.ValueType.String = 3 (not Formula = 6)
    expect(sheet[1].types).to.deep.equal([3, 3]);
    const q = ctx.unique('fx');
    const body = await xlsx([['name', 'sku', 'price'], [`F ${tag}`, `${q}-1`, null]], { row: 2, col: 3, formula: 'SUM(1,2)', result: 3 });
    const fx = await ctx.request().post(`${API}/products/import`).set('Content-Type', XLSX).send(body);
    expect(fx.status, fx.text).to.equal(200);
    expect(((await ctx.get('/products', { oper: { and: [`sku|=|${q}-1`] } })).body.data as Rec[])[0].price).to.equal(3);
  });

  it('on_error=abort: a 422 listing {row, column, field, code, message}, nothing written', async () => {
    const p = ctx.unique('ab');
    const text = csv([['name', 'sku', 'price'], [`A ${tag}`, `${p}-1`, '1'], [`B ${tag}`, `${p}-2`, 'cheap'], [`C ${tag}`, `${p}-3`, ''], [`D ${tag}`, `${p}-1`, '2']]);
    const res = await importCsv('products', text);
    expectError(res, 422, 'validation_error');
    expect(res.body.errors_total).to.be.at.least(2);
    const rows = res.body.rows as Array<Record<string, unknown>>;
    for (const e of rows) expect(Object.keys(e).sort()).to.deep.equal(['code', 'column', 'field', 'message', 'row']);
    expect(rows.map((e) => e.row)).to.include.members([3, 5]);
    expect(rows.find((e) => e.row === 3)).to.include({ column: 'price', field: 'price' });
    expect(rows.find((e) => e.row === 5)).to.include({ column: 'sku', code: 'unique' });
    expect(await countSku(p)).to.equal(0);
  });

  it('on_error=skip: good rows committed, bad rows listed and counted', async () => {
    const p = ctx.unique('sk');
    const existing = await ctx.product({ sku: `${p}-0` });
    const text = csv([['name', 'sku', 'price'], [`A ${tag}`, `${p}-1`, '1'], [`B ${tag}`, `${p}-2`, 'cheap'], [`C ${tag}`, existing.sku, '3'], [`D ${tag}`, `${p}-4`, '4', 'extra']]);
    const res = await importCsv('products', text, { on_error: 'skip' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ rows: 4, created: 1, skipped: 3 });
    expect((res.body.errors as Array<{ row: number }>).map((e) => e.row).sort()).to.deep.equal([3, 4, 5]);
    expect(await countSku(p)).to.equal(2);
  });

  const REFUSED = 'refused by the database';
  /** A rule on products only the database knows: PostgreSQL's CHECK, MongoDB's collection validator. */
  const databaseRule = async (on: boolean): Promise<void> => {
    const { registry } = ctx.app.api as unknown as { registry: { entry(name: string): { declaration: { model: unknown } } } };
    const model = registry.entry('product').declaration.model as { sequelize?: Sequelize; db?: Connection };
    if (ctx.driver === 'sql') {
      await model.sequelize!.query(on ? `ALTER TABLE products ADD CONSTRAINT import_test_rule CHECK (name <> '${REFUSED}')` : 'ALTER TABLE products DROP CONSTRAINT IF EXISTS import_test_rule');
    } else {
      await model.db!.db!.command({ collMod: 'products', validator: on ? { name: { $ne: REFUSED } } : {} });
    }
  };

  it('on_error=skip over several chunks: duplicates, a missing reference, schema refusals and rows only the database refuses are listed by line; exactly the good rows are stored', async () => {
    const p = ctx.unique('skm');
    const taken = (await ctx.product({ sku: ctx.unique('taken') })).sku as string;
    const gone = await ctx.category({ name: ctx.unique('gone') });
    expect((await ctx.request().delete(`${API}/categories/${String(gone.id)}`)).status).to.equal(200);
    const n = 2600;
    const data = Array.from({ length: n }, (_, i) => [`S ${i} ${tag}`, `${p}-${i}`, '1', '1', '']);
    // the sheet's line of data row i is i + 2 (the header is line 1); chunks of 1,000 rows
    const bad = new Map<number, string>([
      [1500, 'sku'], // a sku already stored
      [1600, 'sku'], // the sku of a row of the first chunk
      [1700, 'sku'], // the sku of an earlier row of the same chunk
      [1750, 'category_id'], // a category that no longer exists
      [2500, 'price'], // no number
    ]);
    data[1500][1] = taken;
    data[1600][1] = `${p}-10`;
    data[1700][1] = `${p}-1650`;
    data[1750][4] = String(gone.id);
    data[2500][2] = 'cheap';
    // past the integer field's range
    data[1800][3] = '3000000000';
    bad.set(1800, 'stock');
    // a NUL character (refused by the schema)
    data[1850][0] = `S \u0000 ${tag}`;
    bad.set(1850, 'name');
    // a rule only the database knows (a CHECK, a collection validator): it refuses the chunk's
    // write without naming a row, so the chunk is halved until the rows are found
    data[1900][0] = REFUSED;
    data[1950][0] = REFUSED;
    bad.set(1900, '').set(1950, '');
    await databaseRule(true);
    let res;
    try {
      res = await importCsv('products', csv([['name', 'sku', 'price', 'stock', 'category_id'], ...data]), { on_error: 'skip' });
    } finally {
      await databaseRule(false);
    }
    expect(res.status, res.text).to.equal(200);
    expect(res.body, JSON.stringify(res.body.errors)).to.include({ rows: n, created: n - bad.size, skipped: bad.size });
    const errors = res.body.errors as Array<{ row: number; field: string; code: string; message: string }>;
    expect(errors.map((e) => [e.row, e.field ?? ''])).to.deep.equal([...bad].sort((a, b) => a[0] - b[0]).map(([i, field]) => [i + 2, field]));
    expect(errors.filter((e) => e.field === null).map((e) => e.code)).to.deep.equal(['bad_request', 'bad_request']);
    expect(errors.filter((e) => e.field === 'sku').map((e) => e.code)).to.deep.equal(['unique', 'unique', 'unique']);
    for (const e of errors) expect(e.message).to.be.a('string').and.not.equal('');
    // the good rows' skus are distinct and a stored sku is unique: the count and the bad rows' own skus absent say exactly which
    expect(await countSku(p)).to.equal(n - bad.size);
    for (const i of [1750, 1800, 1850, 1900, 1950, 2500]) expect(await countSku(`${p}-${i}`), `row ${i + 2}`).to.equal(0);
    for (const i of [0, 999, 1000, 1499, 1501, 1749, 1751, 1799, 1801, 1849, 1851, 1899, 1901, 1949, 1951, 2499, 2501, n - 1]) expect(await countSku(`${p}-${i}`), `row ${i + 2}`).to.equal(1);
    expect(await ctx.count('products', { attr: { sku: taken } })).to.equal(1);
  });

  it('on_error=skip without transactions (MongoDB transactions: false): unique values are checked before each write; a refusal that names no row fails the import', async function () {
    if (ctx.driver !== 'mongo') this.skip();
    const app = await ctx.exampleAppWith({}, { mongoTransactions: false });
    try {
      const { default: supertest } = await import('supertest');
      const post = (text: string) => supertest(app.app).post(`${API}/products/import`).query({ on_error: 'skip' }).set('Authorization', `Bearer ${app.info.adminToken}`).set('Content-Type', 'text/csv').send(text);
      const p = ctx.unique('ntx');
      const taken = (await ctx.product({ sku: ctx.unique('taken') })).sku as string;
      const res = await post(csv([['name', 'sku', 'price'], [`N1 ${tag}`, `${p}-1`, '1'], [`N2 ${tag}`, taken, '1'], [`N3 ${tag}`, `${p}-1`, '1'], [`N4 ${tag}`, `${p}-4`, '1']]));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ rows: 4, created: 2, skipped: 2 });
      expect((res.body.errors as Array<{ row: number; code: string }>).map((e) => [e.row, e.code])).to.deep.equal([[3, 'unique'], [4, 'unique']]);
      expect(await countSku(p)).to.equal(2);
      // an ordered insert stopped at a refused row wrote the rows before it: they are not written again
      const q = ctx.unique('ntq');
      await databaseRule(true);
      let refused;
      try {
        refused = await post(csv([['name', 'sku', 'price'], [`Q1 ${tag}`, `${q}-1`, '1'], [REFUSED, `${q}-2`, '1'], [`Q3 ${tag}`, `${q}-3`, '1']]));
      } finally {
        await databaseRule(false);
      }
      expectError(refused, 400, 'bad_request', /validation rules/);
      expect(await countSku(q)).to.equal(1);
    } finally {
      await app.close();
    }
  });

  it('mode=upsert by the declared keys: creates and updates; a key repeated in the file is an error on its later row', async () => {
    const p = ctx.unique('up');
    const old = await ctx.product({ sku: `${p}-1`, name: 'Old', price: 1 });
    const res = await importCsv('products', csv([['sku', 'name', 'price'], [`${p}-1`, 'New', '1'], [`${p}-2`, 'Fresh', '2']]), { mode: 'upsert', match: 'sku' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ rows: 2, created: 1, updated: 1 });
    expect((await ctx.fetch('products', old.id)).name).to.equal('New');
    const dup = await importCsv('products', csv([['sku', 'name', 'price'], [`${p}-3`, 'a', '1'], [`${p}-3`, 'b', '2']]), { mode: 'upsert' });
    expectError(dup, 422, 'validation_error');
    expect(dup.body.rows[0]).to.include({ row: 3, field: 'sku' });
  });

  it('relation columns resolve through a unique field of the related model, one query per chunk; an unknown value is a row error', async () => {
    const product = await ctx.product({ sku: ctx.unique('rel') });
    const res = await ctx.request().post(`${API}/reviews/import`).set('Content-Type', 'text/csv').send(csv([['product.sku', 'user.email', 'rating', 'comment'], [product.sku, carol.user.email, '4', 'good'], ['nope', carol.user.email, '3', 'x']])).query({ on_error: 'skip' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ rows: 2, created: 1, skipped: 1 });
    expect(res.body.errors[0]).to.include({ row: 3, column: 'product.sku', field: 'product_id', code: 'not_found' });
    const reviews = (await ctx.get('/reviews', { oper: { and: [`product_id|=|${product.id}`] } })).body.data as Rec[];
    expect(reviews).to.have.length(1);
    expect(String(reviews[0].user_id)).to.equal(String(carol.user.id));
    // a path through a field that is not unique names the column
    const bad = await ctx.request().post(`${API}/reviews/import`).set('Content-Type', 'text/csv').send(csv([['product.name', 'rating'], ['x', '1']]));
    expectError(bad, 422, 'unknown_field', /product\.name/);
  });

  it('header problems are 422s naming the column before any row is read; malformed files are 400s', async () => {
    expectError(await importCsv('products', csv([['name', 'colour'], ['a', 'red']])), 422, 'unknown_field', /colour/);
    expectError(await importCsv('products', csv([['name', 'name'], ['a', 'b']])), 422, 'unknown_field', /name/);
    expect((await importCsv('products', csv([['name', 'price', 'colour'], ['a', '1', 'red']]))).body.errors).to.have.property('colour');
    expectError(await importCsv('products', 'name,sku,price\r\n"unclosed,x,1\r\n'), 400, 'bad_request', /CSV/);
    expectError(await importCsv('products', ''), 400, 'bad_request');
    expectError(await ctx.request().post(`${API}/products/import`).set('Content-Type', XLSX).send(Buffer.from('not a zip at all')), 400, 'bad_request');
    const header = await importCsv('products', csv([['name', 'sku', 'price']]));
    expect(header.status, header.text).to.equal(200);
    expect(header.body).to.include({ rows: 0, created: 0 });
    // columns a record carries but nobody writes are ignored (77)
    const p = ctx.unique('ig');
    const ignored = await importCsv('products', csv([['id', 'name', 'sku', 'price', 'created_at'], ['999999', `I ${tag}`, `${p}-1`, '1', '2020-01-01']]));
    expect(ignored.status, ignored.text).to.equal(200);
    expect(await countSku(p)).to.equal(1);
  });

  it('a resource that does not opt in answers a JSON 404', async () => {
    const res = await ctx.request().post(`${API}/tags/import`).set('Content-Type', 'text/csv').send('name\r\nx\r\n');
    expect(res.status).to.equal(404);
    expect(res.type).to.equal('application/json');
  });

  it('permissions and policies: create right, update right for upsert, fieldsByRole, ownership', async () => {
    expectError(await importCsv('products', csv([['name', 'sku', 'price'], ['v', ctx.unique('v'), '1']]), {}, viewer.agent()), 403, 'forbidden');
    expectError(await importCsv('products', csv([['name', 'sku', 'price', 'featured'], ['e', ctx.unique('e'), '1', 'true']]), {}, editor.agent()), 422, 'unknown_field', /featured/);
    const ok = await importCsv('products', csv([['name', 'sku', 'price', 'status'], ['e', ctx.unique('e'), '1', 'active']]), {}, editor.agent());
    expect(ok.status, ok.text).to.equal(200);
    // customers create their own orders but may not update them
    const n = ctx.unique('N');
    expectError(await importCsv('orders', csv([['number', 'total', 'placed_at'], [n, '1', '2026-11-01T00:00:00.000Z']]), { mode: 'upsert' }, carol.agent()), 403, 'forbidden');
    const own = await importCsv('orders', csv([['number', 'total', 'placed_at'], [n, '1', '2026-11-01T00:00:00.000Z']]), {}, carol.agent());
    expect(own.status, own.text).to.equal(200);
    const mine = (await ctx.get('/orders', { oper: { and: [`number|=|${n}`] } })).body.data as Rec[];
    expect(String(mine[0].user_id)).to.equal(String(carol.user.id));
    const theirs = await importCsv('orders', csv([['number', 'total', 'placed_at', 'user_id'], [ctx.unique('N'), '1', '2026-11-01T00:00:00.000Z', String(dave.user.id)]]), {}, carol.agent());
    expectError(theirs, 422, 'validation_error');
    expect(theirs.body.rows[0]).to.include({ row: 2, code: 'owner' });
  });

  it('progress: Accept text/event-stream answers progress events and a final done (or failed)', async () => {
    const p = ctx.unique('pg');
    const rows = [['name', 'sku', 'price'], ...Array.from({ length: 2500 }, (_, i) => [`P ${i}`, `${p}-${i}`, String(i)])];
    const res = await importCsv('products', csv(rows), { on_error: 'skip' }).set('Accept', 'text/event-stream').buffer(true).parse((r, done) => { let t = ''; r.setEncoding('utf8'); r.on('data', (c: string) => (t += c)); r.on('end', () => done(null, t)); });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/text\/event-stream/);
    const list = events(res.body as string);
    expect(list[0].event).to.equal('progress');
    expect(list.at(-1)!.event).to.equal('done');
    expect(list.at(-1)!.data).to.include({ rows: 2500, created: 2500 });
    for (const e of list.slice(0, -1)) expect(Object.keys(e.data).sort()).to.deep.equal(['errors', 'rows', 'written']);
    expect(await countSku(p)).to.equal(2500);
    const failed = await importCsv('products', csv([['name', 'sku', 'price'], ['x', ctx.unique('pf'), 'bad']])).set('Accept', 'text/event-stream').buffer(true).parse((r, done) => { let t = ''; r.setEncoding('utf8'); r.on('data', (c: string) => (t += c)); r.on('end', () => done(null, t)); });
    const fl = events(failed.body as string);
    expect(fl[0].event).to.equal('progress');
    expect(fl.at(-1)!.event).to.equal('failed');
    expect((fl.at(-1)!.data.error as Record<string, unknown>).status).to.equal(422);
  });

  it('limits: more rows than REST_IMPORT_ATOMIC_ROWS with abort is a 413 naming on_error=skip, nothing written', async () => {
    const p = ctx.unique('lim');
    // REST_IMPORT_ATOMIC_ROWS's default
    const limit = 10_000;
    const rows = [['name', 'sku', 'price'], ...Array.from({ length: limit + 1 }, (_, i) => [`L ${i}`, `${p}-${i}`, '1'])];
    const res = await importCsv('products', csv(rows));
    expectError(res, 413, 'payload_too_large', /on_error=skip/);
    expect(await countSku(p)).to.equal(0);
  });

  it('Idempotency-Key: a retried import answers the first answer and writes nothing twice', async () => {
    const p = ctx.unique('idem');
    const text = csv([['name', 'sku', 'price'], [`I ${tag}`, `${p}-1`, '1']]);
    const key = ctx.unique('key');
    const first = await importCsv('products', text).set('Idempotency-Key', key);
    expect(first.status, first.text).to.equal(200);
    const again = await importCsv('products', text).set('Idempotency-Key', key);
    expect(again.status).to.equal(200);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(await countSku(p)).to.equal(1);
  });

  it('Idempotency-Key: the file\'s bytes are in the fingerprint: the same file replays, another file is a 422 (raw CSV, multipart xlsx)', async () => {
    const p = ctx.unique('idf');
    const key = ctx.unique('key');
    const one = csv([['name', 'sku', 'price'], [`F1 ${tag}`, `${p}-1`, '1']]);
    const first = await importCsv('products', one, { on_error: 'skip' }).set('Idempotency-Key', key);
    expect(first.status, first.text).to.equal(200);
    const other = csv([['name', 'sku', 'price'], [`F2 ${tag}`, `${p}-2`, '2']]);
    expectError(await importCsv('products', other, { on_error: 'skip' }).set('Idempotency-Key', key), 422, 'idempotency_key_reused');
    const again = await importCsv('products', one, { on_error: 'skip' }).set('Idempotency-Key', key);
    expect(again.status, again.text).to.equal(200);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(await countSku(p)).to.equal(1);
    // multipart: each send has another boundary; the file part's bytes are what is compared
    const q = ctx.unique('idm');
    const mkey = ctx.unique('key');
    const send = (file: Buffer) => ctx.request().post(`${API}/products/import`).set('Idempotency-Key', mkey).attach('file', file, { filename: 'p.xlsx', contentType: XLSX });
    const book = await xlsx([['name', 'sku', 'price'], [`MX1 ${tag}`, `${q}-1`, 1], [`MX2 ${tag}`, `${q}-2`, 2]]);
    const m1 = await send(book);
    expect(m1.status, m1.text).to.equal(200);
    expect(m1.headers['idempotent-replayed']).to.equal(undefined);
    const m2 = await send(book);
    expect(m2.status, m2.text).to.equal(200);
    expect(m2.headers['idempotent-replayed']).to.equal('true');
    expect(m2.body).to.deep.equal(m1.body);
    expectError(await send(await xlsx([['name', 'sku', 'price'], [`MX3 ${tag}`, `${q}-3`, 3]])), 422, 'idempotency_key_reused');
    expect(await countSku(q)).to.equal(2);
  });

  it('Idempotency-Key: a long import keeps its claim past REST_IDEMPOTENCY_STALE_S, so a retry meanwhile is a 409, never a second import', async () => {
    const saved = process.env.REST_IDEMPOTENCY_STALE_S;
    process.env.REST_IDEMPOTENCY_STALE_S = '2';
    const app = await ctx.exampleAppWith({});
    if (saved === undefined) delete process.env.REST_IDEMPOTENCY_STALE_S;
    else process.env.REST_IDEMPOTENCY_STALE_S = saved;
    const server = app.app.listen(0);
    await new Promise((r) => server.once('listening', r));
    try {
      const p = ctx.unique('slow');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API}/products/import?on_error=skip`;
      const headers = { authorization: `Bearer ${app.info.adminToken}`, 'content-type': 'text/csv', 'idempotency-key': ctx.unique('key') };
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // the file arrives over 4 s: the first import runs that long, twice the stale time
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === 0) controller.enqueue(Buffer.from('name,sku,price\n'));
          if (sent === 8) return controller.close();
          await sleep(500);
          controller.enqueue(Buffer.from(`Slow ${sent} ${tag},${p}-${sent},1\n`));
          sent += 1;
        },
      });
      const first = fetch(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
      await sleep(3000);
      const retry = await fetch(url, { method: 'POST', headers, body: `name,sku,price\nRetry ${tag},${p}-retry,1\n` });
      expect(retry.status, await retry.text()).to.equal(409);
      const done = await first;
      expect(done.status).to.equal(200);
      expect(await done.json()).to.include({ rows: 8, created: 8 });
      expect(await countSku(p)).to.equal(8);
    } finally {
      server.close();
      await app.close();
    }
  });

  it('configured limits (REST_IMPORT_MAX_BYTES, REST_IMPORT_ATOMIC_ROWS) and the read cache bumped by an import', async () => {
    const app = await ctx.exampleAppWith({ config: { importMaxBytes: 400, importAtomicRows: 3 }, cache: { enabled: true, store: 'memory', prefix: `imp${Date.now()}` } });
    try {
      const { default: supertest } = await import('supertest');
      const post = (text: string, query: Record<string, string> = {}) => supertest(app.app).post(`${API}/products/import`).query(query).set('Authorization', `Bearer ${app.info.adminToken}`).set('Content-Type', 'text/csv').send(text);
      const p = ctx.unique('cfg');
      const big = csv([['name', 'sku', 'price'], ...Array.from({ length: 40 }, (_, i) => [`Big ${i}`, `${p}-b${i}`, '1'])]);
      expectError(await post(big, { on_error: 'skip' }), 413, 'payload_too_large', /REST_IMPORT_MAX_BYTES/);
      const four = csv([['name', 'sku', 'price'], ...Array.from({ length: 4 }, (_, i) => [`F ${i}`, `${p}-f${i}`, '1'])]);
      expectError(await post(four), 413, 'payload_too_large', /3 rows/);
      const list = () => supertest(app.app).get(`${API}/products`).set('Authorization', `Bearer ${app.info.adminToken}`).query(encodeParams({ oper: { and: [`sku|like|${p}%`] } }));
      expect((await list()).body.data).to.have.length(0);
      expect((await list()).headers['x-cache']).to.equal('hit');
      const ok = await post(four, { on_error: 'skip' });
      expect(ok.status, ok.text).to.equal(200);
      const after = await list();
      expect(after.headers['x-cache']).to.equal('miss');
      expect(after.body.data).to.have.length(4);
    } finally {
      await app.close();
    }
  });

  it('the change feed sees an import as the same creates and updates (one event per record, after the commit)', async () => {
    const server = await listen(ctx.app.app);
    const stream = await ChangeStream.open(`${server.url}${API}/products/changes`, { token: ctx.app.info.adminToken });
    try {
      const p = ctx.unique('cf');
      const old = await ctx.product({ sku: `${p}-0`, name: 'Before' });
      await stream.take(1);
      const res = await importCsv('products', csv([['sku', 'name', 'price'], [`${p}-0`, 'After', '10'], [`${p}-1`, 'New', '1']]), { mode: 'upsert' });
      expect(res.status, res.text).to.equal(200);
      const events = await stream.take(2);
      expect(events.map((e) => [e.type, e.data.model!.name]).sort()).to.deep.equal([['created', 'New'], ['updated', 'After']]);
      expect(events.find((e) => e.type === 'updated')!.data.id).to.equal(old.id);
      // a failed abort-mode import publishes nothing
      const bad = await importCsv('products', csv([['sku', 'name', 'price'], [`${p}-2`, 'Ok', '1'], [`${p}-3`, 'Bad', 'x']]));
      expect(bad.status).to.equal(422);
      await stream.none();
    } finally {
      stream.close();
      await server.close();
    }
  });

  it('xlsx cells: date cells into dates, boolean and number cells cast, a number cell into a text field as its plain text', async () => {
    const n = ctx.unique('N');
    const placed = new Date('2026-10-05T08:30:00.000Z');
    const body = await xlsx([['number', 'total', 'placed_at', 'notes', 'user.email'], [n, 12.5, placed, 42, carol.user.email]]);
    const res = await ctx.request().post(`${API}/orders/import`).set('Content-Type', XLSX).send(body);
    expect(res.status, res.text).to.equal(200);
    const order = ((await ctx.get('/orders', { oper: { and: [`number|=|${n}`] } })).body.data as Rec[])[0];
    expect(order).to.include({ total: 12.5, notes: '42' });
    expect(new Date(order.placed_at as string).toISOString()).to.equal(placed.toISOString());
    expect(String(order.user_id)).to.equal(String(carol.user.id));
    const p = ctx.unique('bo');
    const flags = await importCsv('products', csv([['name', 'sku', 'price', 'featured'], ['a', `${p}-1`, '1', 'TRUE'], ['b', `${p}-2`, '1', '0'], ['c', `${p}-3`, '1', 'yes']]), { on_error: 'skip' });
    expect(flags.body).to.include({ created: 2, skipped: 1 });
    expect(flags.body.errors[0]).to.include({ row: 4, column: 'featured' });
  });

  it('an untyped file (application/octet-stream, or a multipart part without a known type) is read as xlsx when it is a zip, else as CSV', async () => {
    const p = ctx.unique('oc');
    const asXlsx = await ctx.request().post(`${API}/products/import`).set('Content-Type', 'application/octet-stream').send(await xlsx([['name', 'sku', 'price'], ['O1', `${p}-1`, 1]]));
    expect(asXlsx.status, asXlsx.text).to.equal(200);
    const asCsv = await ctx.request().post(`${API}/products/import`).set('Content-Type', 'application/octet-stream').send(Buffer.from(csv([['name', 'sku', 'price'], ['O2', `${p}-2`, '1']])));
    expect(asCsv.status, asCsv.text).to.equal(200);
    const part = await ctx.request().post(`${API}/products/import`).attach('file', await xlsx([['name', 'sku', 'price'], ['O3', `${p}-3`, 1]]), { filename: 'upload', contentType: 'application/octet-stream' });
    expect(part.status, part.text).to.equal(200);
    expect(await countSku(p)).to.equal(3);
  });

  it('lookups obey the caller\'s read rules and ownership: another user named through user.email is a row error', async () => {
    const product = await ctx.product({ sku: ctx.unique('own') });
    const mine = await importCsv('reviews', csv([['product.sku', 'user.email', 'rating'], [product.sku, carol.user.email, '5']]), {}, carol.agent());
    expect(mine.status, mine.text).to.equal(200);
    const theirs = await importCsv('reviews', csv([['product.sku', 'user.email', 'rating'], [product.sku, dave.user.email, '5']]), {}, carol.agent());
    expectError(theirs, 422, 'validation_error');
    expect(theirs.body.rows[0]).to.include({ row: 2 });
    expect(['owner', 'not_found']).to.include(theirs.body.rows[0].code);
  });
});
