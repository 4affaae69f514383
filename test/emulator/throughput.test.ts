import { expect } from 'chai';
import { useMongo } from './helpers';

/** Not a benchmark gate: prints rough driver round-trip figures so regressions are visible. */
describe('emulator conformance: throughput (informational)', () => {
  const mongo = useMongo();

  it('inserts and finds at a usable rate', async function () {
    this.timeout(60_000);
    const c = mongo.db('perf').collection('p');
    const n = 2000;
    let t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await c.insertOne({ i, s: `v${i}` });
    const insertSec = Number(process.hrtime.bigint() - t) / 1e9;
    t = process.hrtime.bigint();
    for (let i = 0; i < 500; i++) await c.findOne({ i });
    const findSec = Number(process.hrtime.bigint() - t) / 1e9;
    t = process.hrtime.bigint();
    await c.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ bulk: i })));
    const bulkSec = Number(process.hrtime.bigint() - t) / 1e9;
    console.log(
      `      insertOne: ${Math.round(n / insertSec)}/s, findOne (2000 docs): ${Math.round(500 / findSec)}/s, insertMany: ${Math.round(10_000 / bulkSec)} docs/s`,
    );
    expect(await c.countDocuments()).to.equal(12_000);
  });
});
