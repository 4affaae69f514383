import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import type { Response } from 'express';
import { EventBuffer } from '../../../lib/changes/event-buffer';
import { SseStream } from '../../../lib/changes/sse-stream';
import { Subscriber, type SubscriberRules } from '../../../lib/changes/subscriber';
import type { ChangeEvent } from '../../../lib/changes/types';
import { ForbiddenError, UnauthenticatedError } from '../../../lib/errors';
import type { ModelInfo } from '../../../lib/resource/model-info';
import { CatalogView } from '../../../lib/service/policy/catalog-view';

const info = { name: 'product', key: 'id', fields: { id: { type: 'id' }, name: { type: 'string' }, cost: { type: 'number' } } } as unknown as ModelInfo;
const view = new CatalogView({ model: () => info, has: () => true, all: () => [info] } as never, (i) => i, true);
const rules = (over: Partial<SubscriberRules> = {}): SubscriberRules => ({ info, filter: null, scope: null, view, select: null, renderKey: JSON.stringify(over.select ?? null), userId: '7', ...over });

/** A socket that takes writes (true) or holds them (false) until `drain()`. */
class FakeResponse extends EventEmitter {
  readonly writes: string[] = [];
  accept = true;
  writableLength = 0;
  ended = false;
  write(text: string): boolean {
    this.writes.push(text);
    if (!this.accept) this.writableLength += text.length;
    return this.accept;
  }
  end(): void {
    this.ended = true;
    this.emit('close');
  }
  drain(): void {
    this.accept = true;
    this.writableLength = 0;
    this.emit('drain');
  }
  /** Event names and record names written, in order. */
  get seen(): string[] {
    return [...this.writes.join('').matchAll(/event: (\w+)\ndata: (.*)\n/g)].map(([, type, data]) => (type === 'created' ? (JSON.parse(data) as { model: { name: string } }).model.name.split('-')[0] : type));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (n: number, name = `e${n}`, cost = 1): ChangeEvent => ({ id: `id${n}`, model: 'product', kind: 'created', key: n, record: { id: n, name, cost } });

function setup(options: { maxLag?: number; maxEvents?: number; maxBytes?: number; recheck?: () => Promise<SubscriberRules> } = {}) {
  const res = new FakeResponse();
  const buffer = new EventBuffer(options.maxEvents ?? 1000, options.maxBytes ?? 1 << 30);
  let subscriber: Subscriber | null = null;
  const failures: unknown[] = [];
  const stream = new SseStream(res as unknown as Response, () => undefined, () => subscriber?.pull());
  subscriber = new Subscriber('product', rules(), stream, buffer, options.maxLag ?? 1 << 30, { recheck: options.recheck ?? (async () => rules()), failed: (error) => failures.push(error) });
  const publish = (e: ChangeEvent, bytes = 100) => subscriber!.deliver(e, buffer.push(e, bytes), new Map());
  return { res, buffer, subscriber, publish, failures };
}

describe('changes: Subscriber (decisions 70, 71)', () => {
  it('keeping up: each event is written as it is published, in one batch per flush', async () => {
    const { res, publish, subscriber } = setup();
    publish(event(1));
    publish(event(2));
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1', 'e2']);
    expect(res.writes).to.have.length(1);
    expect(subscriber.owed).to.equal(0);
  });

  it('a socket that holds its writes: events are owed, not rendered, and all sent in order once it drains', async () => {
    const { res, publish, subscriber } = setup();
    res.accept = false;
    publish(event(1));
    await sleep(30);
    expect(subscriber.stream.isBlocked).to.equal(true);
    for (let n = 2; n <= 5; n += 1) publish(event(n));
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1']);
    expect(subscriber.owed).to.equal(4);
    res.drain();
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect([subscriber.owed, subscriber.stream.isBlocked]).to.deep.equal([0, false]);
  });

  it('big events go out one batch after another as the socket drains (never more than one batch over the cap)', async () => {
    const { res, publish } = setup();
    res.accept = false;
    for (let n = 1; n <= 4; n += 1) publish(event(n, `big${n}-${'x'.repeat(300_000)}`), 300_000);
    // the first frame fills the batch; the others wait in the buffer until the socket drains
    await sleep(30);
    expect(res.seen).to.deep.equal(['big1']);
    for (const expected of [['big1', 'big2'], ['big1', 'big2', 'big3']]) {
      res.drain();
      res.accept = false;
      await sleep(10);
      expect(res.seen).to.deep.equal(expected);
    }
    res.drain();
    await sleep(10);
    expect(res.seen).to.deep.equal(['big1', 'big2', 'big3', 'big4']);
    expect(res.writes).to.have.length(4);
  });

  it('behind by more than maxLag: one reset (with the newest id) when it next drains, then the newest events', async () => {
    const { res, publish, subscriber } = setup({ maxLag: 250 });
    res.accept = false;
    publish(event(1));
    await sleep(30);
    for (let n = 2; n <= 5; n += 1) publish(event(n));
    res.drain();
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1', 'reset']);
    expect(res.writes.join('')).to.contain('id: id5\nevent: reset\ndata: {}\n\n');
    publish(event(6));
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1', 'reset', 'e6']);
    expect(subscriber.owed).to.equal(0);
  });

  it('behind events the buffer dropped: one reset, then on', async () => {
    const { res, publish } = setup({ maxEvents: 2 });
    res.accept = false;
    publish(event(1));
    await sleep(30);
    for (let n = 2; n <= 5; n += 1) publish(event(n));
    res.drain();
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1', 'reset']);
  });

  it('resume: the backlog after Last-Event-ID as the socket drains, whatever its size; an id no longer held: one reset', async () => {
    const { res, buffer, subscriber } = setup({ maxLag: 150 });
    for (let n = 1; n <= 4; n += 1) buffer.push(event(n), 100);
    subscriber.resume('id1');
    await sleep(30);
    expect(res.seen).to.deep.equal(['e2', 'e3', 'e4']);
    const other = setup();
    other.buffer.push(event(9), 10);
    other.subscriber.resume('gone');
    await sleep(30);
    expect(other.res.seen).to.deep.equal(['reset']);
  });

  it('held for a re-check: nothing rendered; then the events under the new rules (a demotion loses cost)', async () => {
    let answer = rules();
    const { res, publish, subscriber } = setup({ recheck: async () => answer });
    publish(event(1));
    await sleep(30);
    expect(res.writes.join('')).to.contain('"cost":1');
    subscriber.hold();
    publish(event(2));
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1']);
    answer = rules({ select: ['id', 'name'] });
    subscriber.refresh(true);
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1', 'e2']);
    expect(res.writes.join('').split('\n').filter((l) => l.startsWith('data:'))[1]).to.equal('data: {"id":2,"model":{"id":2,"name":"e2"}}');
    expect(subscriber.isHeld).to.equal(false);
  });

  it('a re-check answering 401 or 403: event revoked with the reason, and the stream ends', async () => {
    for (const [error, reason] of [[new UnauthenticatedError(), 'unauthenticated'], [new ForbiddenError(), 'forbidden']] as const) {
      const { res, publish, subscriber } = setup({ recheck: () => Promise.reject(error) });
      subscriber.refresh(true);
      publish(event(1));
      await sleep(30);
      expect(res.seen).to.deep.equal(['revoked']);
      expect(res.writes.join('')).to.contain(`event: revoked\ndata: {"reason":"${reason}"}\n\n`);
      expect([res.ended, subscriber.stream.isClosed]).to.deep.equal([true, true]);
    }
  });

  it('a re-check that fails otherwise holds the stream until one succeeds', async () => {
    let fail = true;
    const { res, publish, subscriber, failures } = setup({ recheck: async () => (fail ? Promise.reject(new Error('database down')) : rules()) });
    subscriber.refresh(false);
    await sleep(5);
    publish(event(1));
    await sleep(30);
    expect([res.seen, subscriber.isHeld, failures.length]).to.deep.equal([[], true, 1]);
    fail = false;
    subscriber.refresh(false);
    await sleep(30);
    expect(res.seen).to.deep.equal(['e1']);
  });
});
