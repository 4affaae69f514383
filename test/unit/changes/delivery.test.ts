import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import type { Response } from 'express';
import { Delivery } from '../../../lib/changes/delivery';
import { EventBuffer } from '../../../lib/changes/event-buffer';
import { FlushCycle } from '../../../lib/changes/flush-cycle';
import { SseStream } from '../../../lib/changes/sse-stream';
import { classKeyOf, Subscriber, type SubscriberRules } from '../../../lib/changes/subscriber';
import type { ChangeEvent } from '../../../lib/changes/types';
import type { Loggers } from '../../../lib/log/logger';
import type { Filter } from '../../../lib/query/ast';
import type { ModelInfo } from '../../../lib/resource/model-info';
import { CatalogView } from '../../../lib/service/policy/catalog-view';

const info = { name: 'product', key: 'id', fields: { id: { type: 'id' }, name: { type: 'string' }, price: { type: 'number' } } } as unknown as ModelInfo;
const view = new CatalogView({ model: () => info, has: () => true, all: () => [info] } as never, (i) => i, true);
const rules = (over: Partial<SubscriberRules> = {}): SubscriberRules => ({ info, filter: null, scope: null, view, select: null, renderKey: JSON.stringify(over.select ?? null), userId: '7', ...over });
const cheap: Filter = { kind: 'condition', field: 'price', operator: '<', value: 10 } as Filter;

/** A socket that takes every write (or holds them while `accept` is false). */
class FakeResponse extends EventEmitter {
  readonly writes: string[] = [];
  accept = true;
  writableLength = 0;
  write(text: string): boolean {
    this.writes.push(text);
    if (!this.accept) this.writableLength += text.length;
    return this.accept;
  }
  end(): void {
    this.emit('close');
  }
  get seen(): string[] {
    return [...this.writes.join('').matchAll(/event: (\w+)\ndata: (.*)\n/g)].map(([, type, data]) => (type === 'created' ? String((JSON.parse(data) as { id: number }).id) : type));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A record whose `name` counts its reads: a subscriber's match on name, or a rendering (which
 * copies the record), reads it once; so the reads count the matches and renderings made.
 */
function counted(n: number, price = 1): { event: ChangeEvent; reads: () => number } {
  let reads = 0;
  const record = { id: n, price } as Record<string, unknown>;
  Object.defineProperty(record, 'name', { enumerable: true, get: () => (reads += 1, `p${n}`) });
  return { event: { id: `id${n}`, model: 'product', kind: 'created', key: n, record }, reads: () => reads };
}

function setup(bounds = { maxMs: 60_000, maxBytes: 1 << 30 }) {
  const buffer = new EventBuffer(1000, 1 << 30);
  const subscribers: Array<{ subscriber: Subscriber; res: FakeResponse }> = [];
  const warnings: string[] = [];
  const log = { app: { warn: (message: string) => warnings.push(message) } } as unknown as Loggers;
  const cycle = new FlushCycle();
  const delivery = new Delivery(() => subscribers.map((s) => s.subscriber), () => buffer, bounds, log, cycle);
  const subscribe = (over: Partial<SubscriberRules> = {}) => {
    const res = new FakeResponse();
    let subscriber: Subscriber | null = null;
    const stream = new SseStream(res as unknown as Response, () => undefined, () => subscriber?.pull());
    subscriber = new Subscriber('product', rules(over), stream, buffer, 1 << 30, { recheck: async () => rules(over), failed: () => undefined });
    subscribers.push({ subscriber, res });
    return { subscriber, res };
  };
  const publish = (event: ChangeEvent, bytes = 100, at = Date.now()) => delivery.published('product', buffer.push(event, bytes, at));
  return { buffer, subscribe, publish, delivery, warnings, subscribers };
}

/** Issue 52: the fan-out off the write's path, once per class of subscribers, shedding past its bounds. */
describe('changes: Delivery (issue 52)', () => {
  it('publishing hands nothing to the streams at once: they are written in the next cycle, one write each', async () => {
    const { subscribe, publish } = setup();
    const { res } = subscribe();
    publish(counted(1).event);
    publish(counted(2).event);
    expect(res.writes).to.deep.equal([]);
    await sleep(40);
    expect(res.seen).to.deep.equal(['1', '2']);
    expect(res.writes).to.have.length(1);
  });

  it('each event is matched and rendered once per class (view, select, filter and scope), not once per subscriber', async () => {
    const { subscribe, publish } = setup();
    const everyone = Array.from({ length: 200 }, () => subscribe({ filter: cheap }));
    const named = Array.from({ length: 100 }, () => subscribe({ select: ['id', 'name'], renderKey: 'name' }));
    const mine = Array.from({ length: 50 }, () => subscribe({ scope: { kind: 'condition', field: 'name', operator: '=', value: 'p1' } as Filter }));
    const first = counted(1, 5);
    const dear = counted(2, 50);
    publish(first.event);
    publish(dear.event);
    await sleep(40);
    // event 1: the cheap filter's class renders (1; its match reads price), the select's renders
    // (1), the scope's matches (1) and renders (1); event 2: the cheap class matches nothing, the
    // select's renders (1), the scope's match (1, not p1: nothing rendered). Per subscriber: 350 and more.
    expect([first.reads(), dear.reads()]).to.deep.equal([4, 2]);
    expect(everyone.every(({ res }) => res.seen.join() === '1')).to.equal(true);
    expect(named.every(({ res }) => res.seen.join() === '1,2')).to.equal(true);
    expect(mine.every(({ res }) => res.seen.join() === '1')).to.equal(true);
  });

  it('a backlog older than its bound is shed: the streams keeping up get one reset with the newest id, counted and logged, then go on', async () => {
    const { subscribe, publish, delivery, warnings } = setup({ maxMs: 500, maxBytes: 1 << 30 });
    const streams = Array.from({ length: 3 }, () => subscribe());
    for (let n = 1; n <= 5; n += 1) publish(counted(n).event, 100, Date.now() - 2000);
    await sleep(40);
    for (const { res } of streams) expect(res.seen).to.deep.equal(['reset']);
    expect(streams[0].res.writes.join('')).to.contain('id: id5\nevent: reset\n');
    expect(delivery.stats).to.deep.equal({ sheds: 1, streamsReset: 3 });
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/shed load on product/);
    publish(counted(6).event);
    await sleep(40);
    for (const { res } of streams) expect(res.seen).to.deep.equal(['reset', '6']);
    expect(delivery.stats.sheds).to.equal(1);
  });

  it('a backlog larger than its bytes bound is shed; each stream is written the reset, never the backlog (memory flat whatever the backlog)', async () => {
    const { subscribe, publish, delivery, buffer } = setup({ maxMs: 60_000, maxBytes: 10_000 });
    const streams = Array.from({ length: 20 }, () => subscribe());
    for (let n = 1; n <= 900; n += 1) publish(counted(n).event, 1000);
    await sleep(40);
    expect(delivery.stats).to.deep.equal({ sheds: 1, streamsReset: 20 });
    for (const { res, subscriber } of streams) {
      expect(res.seen).to.deep.equal(['reset']);
      expect(res.writes.join('').length).to.be.below(100);
      expect(subscriber.owed).to.equal(0);
    }
    // the backlog is the shared buffer's, bounded by it, not the streams'
    expect(buffer.next - buffer.first).to.equal(900);
  });

  it('a stream behind its own socket is not shed by the resource (its own lag bound applies); a stream opened after the backlog owes nothing and is not reset', async () => {
    const { subscribe, publish, delivery } = setup({ maxMs: 500, maxBytes: 1 << 30 });
    const slow = subscribe();
    slow.res.accept = false;
    publish(counted(1).event);
    await sleep(40);
    expect(slow.subscriber.stream.isBlocked).to.equal(true);
    publish(counted(2).event, 100, Date.now() - 2000);
    const late = subscribe();
    await sleep(40);
    expect(delivery.stats).to.deep.equal({ sheds: 1, streamsReset: 0 });
    expect(slow.res.seen).to.deep.equal(['1']);
    expect(late.res.writes).to.deep.equal([]);
  });
});

describe('changes: FlushCycle (issue 52)', () => {
  it('a unit whose write throws does not stop the cycle nor the next ones', async () => {
    const cycle = new FlushCycle();
    const written: string[] = [];
    cycle.add({ flush: () => written.push('a') });
    cycle.add({
      flush: () => {
        throw new Error('socket gone');
      },
    });
    cycle.add({ flush: () => written.push('c') });
    await sleep(30);
    cycle.add({ flush: () => written.push('d') });
    await sleep(40);
    expect(written).to.deep.equal(['a', 'c', 'd']);
  });

  it('paces cycles: the next starts no sooner than FLUSH_MS after the last started', async () => {
    const cycle = new FlushCycle();
    const starts: number[] = [];
    const unit = { flush: () => starts.push(performance.now()) };
    for (let i = 0; i < 3; i += 1) {
      cycle.add(unit);
      await sleep(2);
    }
    await sleep(80);
    expect(starts.length).to.be.at.least(2);
    for (let i = 1; i < starts.length; i += 1) expect(starts[i] - starts[i - 1]).to.be.at.least(17); // timers may fire a millisecond or so early
  });
});

describe('changes: classKeyOf (issue 52)', () => {
  const condition = (value: unknown): Filter => ({ kind: 'condition', field: 'price', operator: '<', value }) as Filter;
  it('equal filters share a class; a date and its text, Infinity and null, or another scope do not', () => {
    expect(classKeyOf(rules({ filter: condition(5) }))).to.equal(classKeyOf(rules({ filter: condition(5) })));
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(classKeyOf(rules({ filter: condition(at) }))).to.not.equal(classKeyOf(rules({ filter: condition(at.toISOString()) })));
    expect(classKeyOf(rules({ filter: condition(Infinity) }))).to.not.equal(classKeyOf(rules({ filter: condition(null) })));
    expect(classKeyOf(rules({ scope: condition(1) }))).to.not.equal(classKeyOf(rules({ filter: condition(1) })));
  });
});
