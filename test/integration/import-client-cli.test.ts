import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiRequestError, importFile, type ImportProgress } from '../../lib/client';
import { runCli } from '../../lib/cli/main';
import { progressLine } from '../../lib/cli/import-command';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/** The typed client's importFile and the `import` command against the example app (decision 82), on both drivers. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`imports: typed client and CLI (${driver})`, function () {
    this.timeout(60_000);
    let shop: ExampleApp;
    let server: Server;
    let base: string;
    let headers: Record<string, string>;
    const stamp = `${driver}-${Date.now()}`;

    before(async () => {
      const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
      shop = await createExampleApp({ driver, ...uri });
      await shop.reset();
      server = shop.app.listen(0);
      await new Promise((r) => server.once('listening', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
      headers = { Authorization: `Bearer ${shop.info.adminToken}` };
    });
    after(async () => {
      server?.close();
      await shop?.close();
    });

    const count = async (prefix: string) => {
      const res = await fetch(`${base}/products?oper=${encodeURIComponent(JSON.stringify({ and: [`sku|like|${prefix}%`] }))}&pagination=${encodeURIComponent('{"page":1,"pageSize":1}')}`, { headers });
      return ((await res.json()) as { total: number }).total;
    };

    it('importFile sends the file, reports progress and resolves to the summary; a refused import rejects with the rows', async () => {
      const rows = Array.from({ length: 1500 }, (_, i) => `P ${i},c-${stamp}-${i},${i}`).join('\n');
      const seen: ImportProgress[] = [];
      const summary = await importFile({ baseUrl: base, headers }, 'products', `name,sku,price\n${rows}\n`, { onError: 'skip', onProgress: (p) => seen.push(p) });
      expect(summary).to.include({ rows: 1500, created: 1500, skipped: 0 });
      expect(seen.length).to.be.at.least(1);
      expect(await count(`c-${stamp}`)).to.equal(1500);
      const plain = await importFile({ baseUrl: base, headers }, 'products', `name,sku,price\nx,d-${stamp},1\n`);
      expect(plain).to.include({ rows: 1, created: 1 });
      try {
        await importFile({ baseUrl: base, headers }, 'products', `name,sku,price\nx,e-${stamp},cheap\n`, { onProgress: () => undefined });
        expect.fail('should reject');
      } catch (error) {
        expect(error).to.be.instanceOf(ApiRequestError);
        expect((error as ApiRequestError).status).to.equal(422);
        expect(((error as ApiRequestError).body.rows as Array<{ row: number }>)[0].row).to.equal(2);
      }
    });

    it('the import command sends a file, draws progress on a terminal and prints the summary', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'grr-import-'));
      const file = join(dir, 'products.csv');
      writeFileSync(file, `name,sku,price\n${Array.from({ length: 300 }, (_, i) => `C ${i},cli-${stamp}-${i},${i}`).join('\n')}\nbad,cli-${stamp}-bad,cheap\n`);
      let out = '';
      let err = '';
      const code = await runCli(['import', `${base}/products`, '--file', file, '--token', shop.info.adminToken, '--on-error', 'skip'], { out: (t) => void (out += t), err: (t) => void (err += t) });
      expect(code, err).to.equal(0);
      expect(out).to.match(/imported 301 rows in [\d.]+ s: 300 created, 0 updated, 0 unchanged, 1 skipped/);
      expect(out).to.contain('row 302 (price)');
      expect(await count(`cli-${stamp}`)).to.equal(300);
      expect(progressLine(50, 100, { rows: 10, written: 9, errors: 1 }, 2, 10)).to.equal('[#####.....]  50%  rows 10  5 rows/s  errors 1');
      const refused = await runCli(['import', '--url', base, '--resource', 'products', '--file', file, '--token', shop.info.adminToken], { out: () => undefined, err: (t) => void (err += t) });
      expect(refused).to.equal(1);
      expect(err).to.contain('import refused (422)');
    });
  });
}
