import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { importFile } from '../../lib/client';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedPostgres } from '../support/databases';

const ROWS = Number(process.env.IMPORT_MEMORY_ROWS ?? 300_000);

/** A CSV of `rows` products generated as it is read: the test itself holds no file. */
function csvStream(rows: number, stamp: string): ReadableStream<Uint8Array> {
  let i = 0;
  const source = new Readable({
    read() {
      if (i === 0) this.push('name,sku,price,stock,description\n');
      const lines: string[] = [];
      for (let n = 0; n < 2000 && i < rows; n += 1, i += 1) lines.push(`Memory ${i},mem-${stamp}-${i},${(i % 1000) + 0.5},${i % 50},"a description, with a comma"`);
      if (lines.length > 0) this.push(lines.join('\n') + '\n');
      if (i >= rows) this.push(null);
    },
  });
  return Readable.toWeb(source) as ReadableStream<Uint8Array>;
}

/** Decision 82: memory stays bounded whatever the file's size (streamed parse, chunked writes). */
describe('imports: bounded memory (PostgreSQL)', function () {
  this.timeout(180_000);
  let shop: ExampleApp;
  let server: Server;

  before(async () => {
    shop = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri });
    await shop.reset();
    server = shop.app.listen(0);
    await new Promise((r) => server.once('listening', r));
  });
  after(async () => {
    server?.close();
    await shop?.close();
  });

  it(`a ${ROWS.toLocaleString('en-US')}-row CSV import grows the process's RSS by less than 250 MB`, async () => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    global.gc?.();
    const start = process.memoryUsage().rss;
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    try {
      const summary = await importFile({ baseUrl: base, headers: { Authorization: `Bearer ${shop.info.adminToken}` } }, 'products', csvStream(ROWS, String(Date.now())), { onError: 'skip', onProgress: () => undefined });
      expect(summary).to.include({ rows: ROWS, created: ROWS, skipped: 0 });
    } finally {
      clearInterval(sampler);
    }
    const growth = (peak - start) / 1024 / 1024;
    const seconds = (performance.now() - started) / 1000;
    console.log(`      ${ROWS} rows in ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds)} rows/s), RSS ${Math.round(start / 1048576)} MB -> peak ${Math.round(peak / 1048576)} MB (+${growth.toFixed(0)} MB)`);
    expect(growth).to.be.below(250);
  });
});
