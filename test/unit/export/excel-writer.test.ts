import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { dirname } from 'node:path';
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

/** A client that takes nothing until `open()`, then each chunk a little later, as a socket does. */
function gatedClient(): { out: Writable; open(): void; body(): Buffer } {
  const chunks: Buffer[] = [];
  const waiting: Array<() => void> = [];
  let opened = false;
  const out = new Writable({
    highWaterMark: 16_384,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      if (opened) setImmediate(done);
      else waiting.push(done);
    },
  });
  return {
    out,
    open() {
      opened = true;
      waiting.splice(0).forEach((done) => done());
    },
    body: () => Buffer.concat(chunks),
  };
}

/** `total` rows in batches of 1,000; `pulled.rows` counts those the writer asked for. */
function rowsOf(total: number, pulled: { rows: number }): AsyncIterable<unknown[][]> {
  return (async function* () {
    for (let from = 0; from < total; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, total - from) }, (_, k) => [from + k + 1, `Export product ${from + k + 1} with a longer name to fill the sheet`, (from + k) / 100, CREATED]);
      pulled.rows += batch.length;
      yield batch;
    }
  })();
}

/**
 * The most bytes that waited in archiver's inlet PassThrough (readable-stream 2, archiver-utils'
 * copy) during `work`: the backlog between exceljs and deflate that issue 36 found unbounded.
 */
async function inletBacklog(work: () => Promise<unknown>): Promise<number> {
  const base = dirname(require.resolve('archiver-utils'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PassThrough } = require(require.resolve('readable-stream', { paths: [base] })) as { PassThrough: { prototype: { write: (...args: unknown[]) => boolean } } };
  const write = PassThrough.prototype.write;
  let most = 0;
  PassThrough.prototype.write = function (this: { _writableState: { length: number } }, ...args: unknown[]) {
    const ok = write.apply(this, args);
    most = Math.max(most, this._writableState.length);
    return ok;
  };
  try {
    await work();
  } finally {
    PassThrough.prototype.write = write;
  }
  return most;
}

/** Resolves once `read()` has not changed for 200 ms. */
async function settled(read: () => number): Promise<number> {
  let last = -1;
  while (read() !== last) {
    last = read();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last;
}

/** The streaming xlsx writer (issue 36: the 1,000,000-row export in flat memory). */
describe('excel writer', () => {
  it('finds the zip inlet of exceljs 4 (without it the sheet is buffered whole before deflate)', () => {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: gatedClient().out });
    const sheet = workbook.addWorksheet('Export');
    sheet.addRow(['a']).commit();
    const inlet = zipInlet(sheet);
    expect(inlet, 'exceljs changed shape: the export lost its bound').to.not.equal(null);
    expect(inlet!.full()).to.be.a('boolean');
    expect(zipInlet({})).to.equal(null);
  });

  it('reads no further than a stalled client takes, then streams 60,000 rows into a valid xlsx', async function () {
    this.timeout(120_000);
    const client = gatedClient();
    const pulled = { rows: 0 };
    const written = writeExcel(client.out, COLUMNS, rowsOf(60_000, pulled), new AbortController().signal);
    // a client that takes nothing stops the reads after a few blocks; unbounded, all 60,000 rows
    // (about 9 MB of XML) were read and waited in the zip's inlet
    expect(await settled(() => pulled.rows)).to.be.below(20_000);
    client.open();
    expect(await written).to.equal(60_000);

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

  it('keeps the zip inlet short while a fast client takes everything (deflate is the slow step)', async function () {
    this.timeout(120_000);
    const client = gatedClient();
    client.open();
    const most = await inletBacklog(() => writeExcel(client.out, COLUMNS, rowsOf(60_000, { rows: 0 }), new AbortController().signal));
    // unbounded, about 9 MB of the sheet's XML waited here
    expect(most).to.be.below(1_048_576);
  });

  it('stops with an error when the client goes away mid-export', async () => {
    const controller = new AbortController();
    const rows = (async function* () {
      yield [[1, 'one', 1, CREATED]];
      controller.abort();
      yield [[2, 'two', 2, CREATED]];
    })();
    let failure: Error | null = null;
    await writeExcel(gatedClient().out, COLUMNS, rows, controller.signal).catch((error: Error) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });
});
