import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { PDFParse } from 'pdf-parse';
import type { RestApi } from '../../lib';
import { encodeParams, expectError, forEachDriver, type Rec } from '../support/contract-app';

/** GET /{resource}/export/excel and /export/pdf (spec rows export_excel/export_pdf, decisions 45, 53). */
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** supertest: collect a binary body. */
const binary = (res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void): void => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

async function sheetRows(body: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  workbook.worksheets[0].eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

async function pdfText(body: Buffer): Promise<{ text: string; pages: number }> {
  const parser = new PDFParse({ data: new Uint8Array(body) });
  const result = await parser.getText();
  await parser.destroy();
  return { text: result.text, pages: result.total };
}

forEachDriver('exports', (ctx) => {
  let category: Rec;
  const tag = `exp${Date.now()}`;
  before(async () => {
    await ctx.reset();
    category = await ctx.category({ name: 'Lamps & Lights' });
    for (let i = 1; i <= 30; i += 1) {
      await ctx.product({ name: `Lamp ${String(i).padStart(2, '0')} ${tag}`, price: i + 0.5, stock: i, featured: i % 2 === 0, category_id: category.id });
    }
    await ctx.product({ name: `Other ${tag}`, price: 1 });
    // more rows than one read batch (500) and than one PDF page
    const bulk = Array.from({ length: 620 }, (_, i) => ({ name: `Bulk ${String(i).padStart(3, '0')} ${tag}`, sku: ctx.unique('bulk'), price: i }));
    const res = await ctx.request().post('/api/v1/products').send({ product: bulk });
    expect(res.status, res.text).to.equal(200);
  });

  it('every row of a large export arrives once, in order, across read batches and PDF pages', async () => {
    const oper = { and: [`name|like|Bulk%${tag}`] };
    const rows = await sheetRows((await exportOf('excel', { oper, columns: 'name', orderby: [{ name: 'asc' }] })).body as Buffer);
    expect(rows).to.have.length(621);
    expect(rows.slice(1).map((r) => r[0])).to.deep.equal(Array.from({ length: 620 }, (_, i) => `Bulk ${String(i).padStart(3, '0')} ${tag}`));
    const pdf = await exportOf('pdf', { oper, columns: 'name,price' });
    const { text, pages } = await pdfText(pdf.body as Buffer);
    expect(pages).to.be.greaterThan(5);
    expect(text.split('price').length - 1).to.equal(pages);
    expect(text).to.contain(`Page ${pages}`);
    expect(text).to.contain(`Bulk 619 ${tag}`);
  });

  const exportOf = (format: 'excel' | 'pdf', params: Record<string, unknown>) =>
    ctx.request().get(`/api/v1/products/export/${format}`).query(encodeParams(params)).buffer(true).parse(binary as never);

  it('excel: typed cells, header row, filter and order honoured, pagination ignored, X-Total-Count', async () => {
    const res = await exportOf('excel', {
      oper: { and: [`name|like|Lamp%${tag}`] },
      orderby: [{ price: 'desc' }],
      columns: ['id', 'name', 'price', 'featured', 'created_at', 'category.name'],
      pagination: { page: 1, pageSize: 5 },
    });
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers['content-type']).to.equal(XLSX);
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="excel\.xlsx"/);
    expect(res.headers['x-total-count']).to.equal('30');
    const rows = await sheetRows(res.body as Buffer);
    expect(rows[0]).to.deep.equal(['id', 'name', 'price', 'featured', 'created_at', 'category.name']);
    expect(rows).to.have.length(31);
    expect(rows[1][1]).to.equal(`Lamp 30 ${tag}`);
    expect(rows[1][2]).to.equal(30.5);
    expect(rows[1][3]).to.equal(true);
    expect(rows[1][4]).to.be.instanceOf(Date);
    expect(rows[1][5]).to.equal('Lamps & Lights');
    expect(rows[30][1]).to.equal(`Lamp 01 ${tag}`);
  });

  it('excel without columns: id then the fillable fields; with select: id then select', async () => {
    const plain = await sheetRows((await exportOf('excel', { attr: { name: `Other ${tag}` } })).body as Buffer);
    expect(plain[0][0]).to.equal('id');
    expect(plain[0]).to.include.members(['name', 'sku', 'price']);
    const selected = await sheetRows((await exportOf('excel', { attr: { name: `Other ${tag}` }, select: 'name,price' })).body as Buffer);
    expect(selected[0]).to.deep.equal(['id', 'name', 'price']);
    expect(selected[1].slice(1)).to.deep.equal([`Other ${tag}`, 1]);
  });

  it('pdf: a table with the header on every page, page numbers, every row', async () => {
    const res = await exportOf('pdf', { oper: { and: [`name|like|Lamp%${tag}`] }, columns: 'name,price,category.name', filename: 'lamps' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/pdf');
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="lamps\.pdf"/);
    const { text, pages } = await pdfText(res.body as Buffer);
    for (let i = 1; i <= 30; i += 1) expect(text).to.contain(`Lamp ${String(i).padStart(2, '0')} ${tag}`);
    expect(text).to.contain('Lamps & Lights');
    expect(text).to.contain('Page 1');
    expect(pages).to.be.at.least(1);
    expect(text.split('category.name').length - 1).to.equal(pages);
  });

  it('an application template draws the rows its own way', async () => {
    const api = (ctx.app as unknown as { api: RestApi }).api;
    api.registerPdfTemplate('plain-list', () => ({
      begin: (doc, headers) => void doc.fontSize(10).text(`LIST OF ${headers.join('+')}`),
      row: (doc, cells) => void doc.text(`* ${cells.join(' / ')}`),
      end: (doc, count) => void doc.text(`${count} rows`),
    }));
    const res = await exportOf('pdf', { attr: { name: `Other ${tag}` }, columns: 'name,price', template: 'plain-list' });
    expect(res.status).to.equal(200);
    const { text } = await pdfText(res.body as Buffer);
    expect(text).to.contain('LIST OF name+price');
    expect(text).to.contain(`* Other ${tag} / 1`);
    expect(text).to.contain('1 rows');
  });

  it('relation exports: the reviews (hasMany) and tags (many-to-many) of one product, export.xlsx by default', async () => {
    const product = await ctx.product({ name: `Related ${tag}` });
    const other = await ctx.product({ name: `Unrelated ${tag}` });
    await ctx.create('reviews', { product_id: product.id, rating: 5, comment: 'kept' });
    const trashed = await ctx.create('reviews', { product_id: product.id, rating: 1, comment: 'trashed' });
    await ctx.request().delete(`/api/v1/reviews/${trashed.id}`);
    await ctx.create('reviews', { product_id: other.id, rating: 3, comment: 'elsewhere' });
    const reviews = await ctx.request().get(`/api/v1/products/${product.id}/reviews/export/excel`).query({ columns: 'rating,comment' }).buffer(true).parse(binary as never);
    expect(reviews.status).to.equal(200);
    expect(reviews.headers['content-disposition']).to.match(/filename="export\.xlsx"/);
    expect(await sheetRows(reviews.body as Buffer)).to.deep.equal([['rating', 'comment'], [5, 'kept']]);

    const red = await ctx.tagRec({ name: ctx.unique('red') });
    const blue = await ctx.tagRec({ name: ctx.unique('blue') });
    await ctx.attach(product, red);
    await ctx.attach(other, blue);
    const tags = await ctx.request().get(`/api/v1/products/${product.id}/tags/export/pdf`).query({ columns: 'name' }).buffer(true).parse(binary as never);
    expect(tags.status).to.equal(200);
    expect(tags.headers['content-disposition']).to.match(/filename="export\.pdf"/);
    const { text } = await pdfText(tags.body as Buffer);
    expect(text).to.contain(String(red.name));
    expect(text).to.not.contain(String(blue.name));
  });

  it('a relation export of an unknown parent is a JSON 404 naming it', async () => {
    const absent = await ctx.absentId('products');
    expectError(await ctx.get(`/products/${absent}/reviews/export/excel`), 404, 'not_found', new RegExp(String(absent)));
  });

  it('a hostile filename is sanitized: no path, quotes or line breaks', async () => {
    const res = await exportOf('excel', { attr: { name: `Other ${tag}` }, filename: '../../etc/pa"ss\r\nX-Evil: 1.xlsx' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-disposition']).to.not.match(/[\r\n]|\.\.\/|etc\//);
    expect(res.headers['x-evil']).to.equal(undefined);
  });

  it('an unknown column, a write-only column, a to-many column or an unknown template is a JSON 400 before any byte', async () => {
    expectError(await ctx.get('/products/export/excel', { columns: 'name,colour' }), 400, 'bad_request', /colour/);
    expectError(await ctx.get('/users/export/excel', { columns: 'name,api_token' }), 400, 'bad_request', /api_token/);
    expectError(await ctx.get('/products/export/excel', { columns: 'reviews.rating' }), 400, 'bad_request', /to-one/);
    expectError(await ctx.get('/products/export/pdf', { template: 'fancy' }), 400, 'bad_request', /fancy/);
    expectError(await ctx.get('/products/export/excel', { oper: { and: ['nope|=|1'] } }), 400, 'bad_request', /nope/);
  });
});
