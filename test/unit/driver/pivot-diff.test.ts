import { expect } from 'chai';
import type { Id, PivotRow } from '../../../lib/driver';
import { pivotDiff, type PivotDiff, type PivotScenario, type WantedLink } from '../../../lib/driver/pivot-diff';

/**
 * The pure pivot diff of attach / bulk_attach / sync / toggle (decision 32), table-driven: what is
 * wanted, what is linked now, and the attach / detach / update it answers. Ids compare by their
 * text, so integer ids (SQL) and ObjectId hex strings (MongoDB) behave the same, and a wanted id
 * given as text matches a linked integer id.
 */

const A = '65a000000000000000000001';
const B = '65a000000000000000000002';
const C = '65a000000000000000000003';
const PARENT_HEX = '65a0000000000000000000ff';

const want = (id: Id, values: Record<string, unknown> = {}): WantedLink => ({ id, values });
const row = (relatedId: Id, values: Record<string, unknown> = {}, parentId: Id = 1): PivotRow => ({ parentId, relatedId, values });
const none: PivotDiff = { attach: [], detach: [], update: [] };

interface Case {
  title: string;
  scenario: PivotScenario;
  wanted: WantedLink[];
  current: PivotRow[];
  expected: PivotDiff;
}

const cases: Case[] = [
  // ---- empty sets
  { title: 'nothing wanted, nothing linked', scenario: 'attach', wanted: [], current: [], expected: none },
  { title: 'nothing wanted, nothing linked', scenario: 'bulk_attach', wanted: [], current: [], expected: none },
  { title: 'nothing wanted, nothing linked', scenario: 'sync', wanted: [], current: [], expected: none },
  { title: 'nothing wanted, nothing linked', scenario: 'toggle', wanted: [], current: [], expected: none },
  { title: 'nothing wanted: attach changes nothing', scenario: 'attach', wanted: [], current: [row(1), row(2)], expected: none },
  { title: 'nothing wanted: toggle changes nothing', scenario: 'toggle', wanted: [], current: [row(1), row(2)], expected: none },
  { title: 'nothing wanted: sync detaches every link', scenario: 'sync', wanted: [], current: [row(1), row(2)], expected: { attach: [], detach: [1, 2], update: [] } },
  {
    title: 'nothing linked: sync attaches every wanted link', scenario: 'sync', wanted: [want(1, { position: 1 }), want(2)], current: [],
    expected: { attach: [want(1, { position: 1 }), want(2)], detach: [], update: [] },
  },

  // ---- attach / bulk_attach: adds the missing links, leaves present ones as they are
  { title: 'integer ids: adds only the missing', scenario: 'attach', wanted: [want(1), want(2), want(3)], current: [row(2)], expected: { attach: [want(1), want(3)], detach: [], update: [] } },
  { title: 'integer ids: adds only the missing', scenario: 'bulk_attach', wanted: [want(1), want(2), want(3)], current: [row(2)], expected: { attach: [want(1), want(3)], detach: [], update: [] } },
  { title: 'hex ids: adds only the missing', scenario: 'attach', wanted: [want(A), want(B)], current: [row(B, {}, PARENT_HEX)], expected: { attach: [want(A)], detach: [], update: [] } },
  {
    title: 'a present link with other pivot values is NOT updated', scenario: 'attach',
    wanted: [want(1, { position: 9 }), want(2, { position: 2 })], current: [row(1, { position: 1 })],
    expected: { attach: [want(2, { position: 2 })], detach: [], update: [] },
  },
  {
    title: 'a present link with other pivot values is NOT updated', scenario: 'bulk_attach',
    wanted: [want(1, { note: 'new' })], current: [row(1, { note: 'old' })], expected: none,
  },
  { title: 'everything already linked', scenario: 'attach', wanted: [want(1), want(2)], current: [row(1), row(2), row(3)], expected: none },
  { title: 'a wanted id given as text matches a linked integer', scenario: 'attach', wanted: [want('2')], current: [row(2)], expected: none },
  { title: 'the wanted values are kept on the attached links', scenario: 'bulk_attach', wanted: [want(C, { position: 3, note: 'x' })], current: [], expected: { attach: [want(C, { position: 3, note: 'x' })], detach: [], update: [] } },

  // ---- sync: attach the missing, detach the unwanted, update the kept ones whose values differ
  {
    title: 'integer ids: attach, detach and keep', scenario: 'sync', wanted: [want(1), want(3)], current: [row(1), row(2)],
    expected: { attach: [want(3)], detach: [2], update: [] },
  },
  {
    title: 'hex ids: attach, detach and keep', scenario: 'sync', wanted: [want(A), want(C)], current: [row(A, {}, PARENT_HEX), row(B, {}, PARENT_HEX)],
    expected: { attach: [want(C)], detach: [B], update: [] },
  },
  {
    title: 'a kept link whose pivot values differ is updated', scenario: 'sync',
    wanted: [want(1, { position: 5 }), want(2, { position: 2 })], current: [row(1, { position: 1, note: 'n' }), row(2, { position: 2, note: null })],
    expected: { attach: [], detach: [], update: [want(1, { position: 5 })] },
  },
  {
    title: 'a kept link with the same values (absent columns ignored) is not updated', scenario: 'sync',
    wanted: [want(1, { position: 1 }), want(2, {})], current: [row(1, { position: 1, note: 'n' }), row(2, { position: 7, note: 'z' })],
    expected: none,
  },
  {
    title: 'null differs from a value, and a value from null', scenario: 'sync',
    wanted: [want(1, { note: null }), want(2, { note: 'set' })], current: [row(1, { note: 'was' }), row(2, { note: null })],
    expected: { attach: [], detach: [], update: [want(1, { note: null }), want(2, { note: 'set' })] },
  },
  {
    title: 'a wanted id given as text keeps a linked integer (no detach, no attach)', scenario: 'sync',
    wanted: [want('1', { position: 1 })], current: [row(1, { position: 1 })], expected: none,
  },
  {
    title: 'detach answers the linked ids as they are stored', scenario: 'sync', wanted: [want('1')], current: [row(1), row(2), row(3)],
    expected: { attach: [], detach: [2, 3], update: [] },
  },
  {
    title: 'the same set: nothing to change', scenario: 'sync', wanted: [want(A), want(B)], current: [row(B), row(A)], expected: none,
  },

  // ---- toggle: removes the wanted links that are present, adds the others; never updates
  { title: 'integer ids: present ones detached, missing ones attached', scenario: 'toggle', wanted: [want(1), want(3)], current: [row(1), row(2)], expected: { attach: [want(3)], detach: [1], update: [] } },
  { title: 'hex ids: present ones detached, missing ones attached', scenario: 'toggle', wanted: [want(A), want(C)], current: [row(A), row(B)], expected: { attach: [want(C)], detach: [A], update: [] } },
  { title: 'a link not wanted is left alone', scenario: 'toggle', wanted: [want(3)], current: [row(1), row(2)], expected: { attach: [want(3)], detach: [], update: [] } },
  { title: 'pivot values never cause an update', scenario: 'toggle', wanted: [want(1, { position: 9 })], current: [row(1, { position: 1 })], expected: { attach: [], detach: [1], update: [] } },
  { title: 'a wanted id given as text detaches a linked integer (answers the linked id, as a sync does)', scenario: 'toggle', wanted: [want('2')], current: [row(2)], expected: { attach: [], detach: [2], update: [] } },
  { title: 'everything wanted is linked: all detached', scenario: 'toggle', wanted: [want(A), want(B)], current: [row(A), row(B)], expected: { attach: [], detach: [A, B], update: [] } },
];

describe('pivotDiff (driver/pivot-diff)', () => {
  for (const c of cases) {
    it(`${c.scenario}: ${c.title}`, () => {
      expect(pivotDiff(c.scenario, c.wanted, c.current)).to.deep.equal(c.expected);
    });
  }

  it('keeps the order of the wanted links and of the current rows', () => {
    const diff = pivotDiff('sync', [want(5), want(4), want(1)], [row(3), row(1), row(2)]);
    expect(diff.attach.map((w) => w.id)).to.deep.equal([5, 4]);
    expect(diff.detach).to.deep.equal([3, 2]);
  });

  it('does not change its inputs', () => {
    const wanted = [want(1, { position: 2 }), want(2)];
    const current = [row(1, { position: 1 }), row(3)];
    const snapshot = JSON.stringify({ wanted, current });
    for (const scenario of ['attach', 'bulk_attach', 'sync', 'toggle'] as const) pivotDiff(scenario, wanted, current);
    expect(JSON.stringify({ wanted, current })).to.equal(snapshot);
  });
});
