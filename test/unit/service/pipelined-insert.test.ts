import { expect } from 'chai';
import type { Row, Transaction } from '../../../lib/driver';
import { ValidationError } from '../../../lib/errors';
import { chunkRanges, pipelinedInsert, type PipelinedInsert } from '../../../lib/service/writes/pipelined-insert';

/** The orchestration of a chunked bulk create (the database side is in the contract suite). */
describe('pipelined insert', () => {
  it('chunks: one below 250 records, then up to eight of at least 125, covering every index once', () => {
    expect(chunkRanges(1)).to.deep.equal([[0, 1]]);
    expect(chunkRanges(249)).to.deep.equal([[0, 249]]);
    expect(chunkRanges(250)).to.deep.equal([[0, 125], [125, 250]]);
    expect(chunkRanges(1000)).to.deep.equal([0, 125, 250, 375, 500, 625, 750, 875].map((from) => [from, from + 125]));
    for (const n of [777, 1001, 100_000]) {
      const ranges = chunkRanges(n);
      expect(ranges.length).to.be.at.most(8);
      expect(ranges[0][0]).to.equal(0);
      expect(ranges[ranges.length - 1][1]).to.equal(n);
      ranges.slice(1).forEach(([from], i) => expect(from).to.equal(ranges[i][1]));
    }
  });

  /** Items are numbers; negative ones are invalid; `inserts` fail as told. */
  function plan(items: number[], options: { failInsert?: (attempt: number) => unknown; attempts?: number } = {}) {
    const calls = { opened: [] as number[], prepared: [] as Array<[number, number]>, inserted: [] as number[][], finished: [] as Array<'in' | 'after'>, attempts: 0 };
    const p: PipelinedInsert = {
      ranges: chunkRanges(items.length),
      errors: {},
      prepare: async (from, to) => {
        calls.prepared.push([from, to]);
        for (let i = from; i < to; i += 1) if (items[i] < 0) p.errors[`item.${i}`] = ['negative'];
        return items.slice(from, to).map((value) => ({ value }));
      },
      insert: (records) => async () => {
        const failure = options.failInsert?.(calls.attempts);
        if (failure) throw failure;
        calls.inserted.push(records.map((r) => r.value as number));
        return records.map((r) => ({ id: r.value }) as Row);
      },
      finish: async (rows) => {
        calls.finished.push(rows ? 'in' : 'after');
      },
      transaction: async (work) => {
        calls.opened.push(calls.prepared.length);
        for (;;) {
          calls.attempts += 1;
          try {
            return await work({ driver: 'sql' } as unknown as Transaction);
          } catch (error) {
            if ((error as { retry?: boolean }).retry && calls.attempts < (options.attempts ?? 1)) continue;
            throw error;
          }
        }
      },
    };
    return { p, calls };
  }

  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('inserts every chunk in order and checks references once, inside the transaction', async () => {
    const { p, calls } = plan(numbers(1000));
    const rows = await pipelinedInsert(p);
    expect(rows.map((r) => r.id)).to.deep.equal(numbers(1000));
    expect(calls.inserted.map((c) => c.length)).to.deep.equal(Array(8).fill(125));
    expect(calls.finished).to.deep.equal(['in']);
  });

  it('an invalid item stops the inserts, yet every item is checked; the errors are the answer', async () => {
    const items = numbers(1000);
    items[400] = -1;
    items[999] = -1;
    const { p, calls } = plan(items);
    const error = await pipelinedInsert(p).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(ValidationError);
    expect(Object.keys(p.errors)).to.deep.equal(['item.400', 'item.999']);
    expect(calls.inserted.length).to.be.at.most(3); // chunks 0-2 may have gone in before chunk 3 found item 400; rolled back
    expect(calls.finished).to.deep.equal(['after']);
  });

  it('the transaction opens while the first chunk is prepared (its BEGIN hidden behind that work)', async () => {
    const { p, calls } = plan(numbers(1000));
    await pipelinedInsert(p);
    // opened after the first slice of 25 items, before the first chunk of 125 was ready
    expect(calls.opened).to.deep.equal([1]);
  });

  it('an invalid first chunk: every item is still checked and nothing is inserted', async () => {
    const items = numbers(600);
    items[0] = -1;
    const { p, calls } = plan(items);
    const error = await pipelinedInsert(p).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(ValidationError);
    expect(calls.inserted).to.deep.equal([]);
    expect(calls.prepared.flat()).to.include(600);
    expect(calls.finished).to.deep.equal(['after']);
  });

  it("the database's refusal is thrown as it is after the references were checked", async () => {
    const refusal = Object.assign(new Error('duplicate key'), { code: '23505' });
    const { p, calls } = plan(numbers(1000), { failInsert: () => refusal });
    const error = await pipelinedInsert(p).then(() => null, (e: unknown) => e);
    expect(error).to.equal(refusal);
    expect(calls.finished).to.deep.equal(['after']);
  });

  it('a transaction the driver runs again (deadlock) prepares nothing twice and returns the rows once', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { retry: true });
    const { p, calls } = plan(numbers(1000), { failInsert: (attempt) => (attempt === 1 ? deadlock : null), attempts: 3 });
    const rows = await pipelinedInsert(p);
    expect(calls.attempts).to.equal(2);
    expect(rows.map((r) => r.id)).to.deep.equal(numbers(1000));
    // every item prepared exactly once across both attempts
    expect(calls.prepared.reduce((n, [from, to]) => n + to - from, 0)).to.equal(1000);
  });
});
