import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { Writable } from 'node:stream';
import { writeExcel, type SheetColumn } from '../../../lib/export/excel-writer';
import { zipInlet } from '../../../lib/export/zip-inlet';

const COLUMNS: SheetColumn[] = [
  { header: 'id', type: 'integer' },
  { header: 'name', type: 'string' },
  { header: 'price', type: 'number' },
  { header: 'created_at', type: 'date' },
];
const CREATED = new Date('2026-01-01T00:00:00.000Z');

/** A client that takes each chunk a little later, as a socket does; keeps what it got. */
function slowClient(): { out: Writable; body: () => Buffer } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 16_384,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { out, body: () => Buffer.concat(chunks) };
}

/** `total` rows in batches of 1,000; records the most Buffer memory seen between batches. */
function rowsOf(total: number, seen: { maxArrayBuffersMb: number }): AsyncIterable<unknown[][]> {
  return (async function* () {
    for (let from = 0; from < total; from += 1000) {
      seen.maxArrayBuffersMb = Math.max(seen.maxArrayBuffersMb, process.memoryUsage().arrayBuffers / 1048576);
      yield Array.from({ length: Math.min(1000, total - from) }, (_, k) => [from + k + 1, `Export product ${from + k + 1} with a longer name to fill the sheet`, (from + k) / 100, CREATED]);
    }
  })();
}

/** The streaming xlsx writer (issue 36: the 1,000,000-row export in flat memory). */
describe('excel writer', () => {
  it('finds the zip inlet of exceljs 4 (without it the sheet is buffered whole before deflate)', () => {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: slowClient().out });
    const sheet = workbook.addWorksheet('Export');
    sheet.addRow(['a']).commit();
    const inlet = zipInlet(sheet);
    expect(inlet, 'exceljs changed shape: the export lost its bound').to.not.equal(null);
    expect(inlet!.full()).to.be.a('boolean');
    expect(zipInlet({})).to.equal(null);
  });

  it('streams 60,000 rows into a valid xlsx without piling the sheet up in memory', async function () {
    this.timeout(120_000);
    const client = slowClient();
    const seen = { maxArrayBuffersMb: 0 };
    const before = process.memoryUsage().arrayBuffers / 1048576;
    const written = await writeExcel(client.out, COLUMNS, rowsOf(60_000, seen), new AbortController().signal);
    expect(written).to.equal(60_000);
    // unbounded, the sheet's XML (about 9 MB here) waited in the zip's inlet as Buffers
    expect(seen.maxArrayBuffersMb - before).to.be.below(4);

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(client.body() as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    expect(sheet.rowCount).to.equal(60_001);
    expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal(['id', 'name', 'price', 'created_at']);
    expect((sheet.getRow(2).values as unknown[]).slice(1)).to.deep.equal([1, 'Export product 1 with a longer name to fill the sheet', 0, CREATED]);
    expect((sheet.getRow(60_001).values as unknown[]).slice(1)).to.deep.equal([60_000, 'Export product 60000 with a longer name to fill the sheet', 599.99, CREATED]);
    let ids = 0;
    sheet.eachRow((row, n) => {
      if (n > 1 && row.getCell(1).value === n - 1) ids += 1;
    });
    expect(ids).to.equal(60_000);
  });

  it('stops with an error when the client goes away mid-export', async () => {
    const controller = new AbortController();
    const rows = (async function* () {
      yield [[1, 'one', 1, CREATED]];
      controller.abort();
      yield [[2, 'two', 2, CREATED]];
    })();
    let failure: Error | null = null;
    await writeExcel(slowClient().out, COLUMNS, rows, controller.signal).catch((error: Error) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });
});
