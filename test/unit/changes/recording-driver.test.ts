import { expect } from 'chai';
import type { Driver, Id, Transaction } from '../../../lib/driver';
import { recordingDriver, type ChangeSink, type RecordedChange } from '../../../lib/changes/recording-driver';
import type { ModelInfo } from '../../../lib/resource/model-info';

/** A driver double: a method that reads `this`, a field replaced after wrapping, an accessor. */
class FakeDriver {
  readonly kind = 'fake';
  pivots: { read(): string } | undefined = { read: () => 'first' };
  private rows = 0;
  get count(): number {
    return this.rows;
  }
  async list(): Promise<{ rows: unknown[] }> {
    this.rows += 1;
    return { rows: [] };
  }
  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work({ driver: 'fake' } as Transaction);
  }
  async insert(_model: string, records: unknown[]): Promise<Id[]> {
    return records.map((_, i) => i + 1);
  }
}

describe('recordingDriver: the driver with its writes recorded', () => {
  const committed: RecordedChange[][] = [];
  const sink = (live: boolean): ChangeSink => ({
    isLive: () => live,
    model: () => ({ key: 'id', softDelete: null }) as unknown as ModelInfo,
    catalog: () => ({ model: () => ({ key: 'id', softDelete: null }) as unknown as ModelInfo, has: () => true, all: () => [] }),
    committed: async (changes) => void committed.push(changes),
  });

  it("forwards everything else to the driver: its methods bound to it, its properties read live", async () => {
    const inner = new FakeDriver();
    const driver = recordingDriver(inner as unknown as Driver, sink(false)) as unknown as FakeDriver;
    expect(driver.kind).to.equal('fake');
    await driver.list();
    expect(inner.count).to.equal(1);
    expect(driver.count).to.equal(1);
    inner.pivots = { read: () => 'second' };
    expect(driver.pivots?.read()).to.equal('second');
    driver.pivots = undefined;
    expect(inner.pivots).to.equal(undefined);
  });

  it('records a write inside a transaction and hands it over after the commit, only when the feed is live', async () => {
    committed.length = 0;
    for (const live of [false, true]) {
      const driver = recordingDriver(new FakeDriver() as unknown as Driver, sink(live));
      await driver.transaction((tx) => driver.insert('product', [{}, {}], tx));
    }
    expect(committed).to.deep.equal([
      [
        { model: 'product', key: 1, kind: 'created', before: undefined },
        { model: 'product', key: 2, kind: 'created', before: undefined },
      ],
    ]);
  });
});
