import { expect } from 'chai';
import { matchesFilter } from '../../lib/changes/match-filter';
import type { Filter } from '../../lib/query/ast';
import type { ModelInfo } from '../../lib/resource/model-info';
import { API, forEachDriver, names } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';

/**
 * Decision 73 on both drivers: `ilike` and `not ilike` compare under one case rule (Unicode's
 * simple lower case per code point: `É` is `é`, `ẞ` is `ß` and `ß` is not `ss`, `Σ` is `σ` but
 * `ς` only itself, `İ` is `i`, `ı` only itself), on lists, aggregates and the change feed alike;
 * `like` is case-sensitive. Every case states its rows, and checks that the feed's matcher picks
 * the same ones and that `not ilike` answers exactly the others (nothing widened, nothing lost).
 */
const NAMES = ['École Bleue', 'ÉCOLE ROUGE', 'Straße Eins', 'STRAẞE ZWEI', 'Strasse Drei', 'ΣΟΦΙΑ', 'σοφια μικρη', 'ΟΔΟΣ', 'Ärger', 'ärmel', 'ПРИВЕТ', 'привет мир', 'İstanbul', 'ıslak', '\u212aELVIN'];

const CASES: Array<[string, string[]]> = [
  ['école%', ['École Bleue', 'ÉCOLE ROUGE']],
  ['%BLEUE', ['École Bleue']],
  ['straße%', ['STRAẞE ZWEI', 'Straße Eins']],
  ['STRASSE%', ['Strasse Drei']],
  ['σοφια%', ['ΣΟΦΙΑ', 'σοφια μικρη']],
  ['οδος', []],
  ['οδοσ', ['ΟΔΟΣ']],
  ['är%', ['Ärger', 'ärmel']],
  ['ПРИВЕТ%', ['ПРИВЕТ', 'привет мир']],
  ['istanbul', ['İstanbul']],
  ['ISLAK', []],
  ['ıslak', ['ıslak']],
  ['kelvin', ['\u212aELVIN']],
  ['%_ R%', ['ÉCOLE ROUGE']],
];

/** What the matcher reads of the products model: the field types. */
const PRODUCT = { name: 'product', key: 'id', fields: { name: { type: 'string' }, sku: { type: 'string' }, price: { type: 'number' } } } as unknown as ModelInfo;

forEachDriver('ilike under one case rule (decision 73)', (ctx) => {
  let server: { url: string; close(): Promise<void> };
  let prefix = '';
  const streams: ChangeStream[] = [];
  const within = (condition: string) => ({ and: [`sku|like|${prefix}%`, condition] });
  const feedRow = (name: string) => ({ name, sku: `${prefix}x`, price: 1 });

  before(async () => {
    await ctx.reset();
    server = await listen(ctx.app.app);
    prefix = `UNI-${ctx.unique('u')}-`;
    // subscribers first: the feed must pick from the writes below what the lists pick from the table
    for (const [pattern] of CASES) {
      streams.push(await ChangeStream.open(`${server.url}${API}/products/changes`, { token: ctx.app.info.adminToken, params: { oper: { and: [`name|ilike|${pattern}`] } } }));
    }
    for (const [i, name] of NAMES.entries()) await ctx.product({ name, sku: `${prefix}${i}` });
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await server.close();
  });

  for (const [index, [pattern, expected]] of CASES.entries()) {
    it(`ilike "${pattern}": ${JSON.stringify(expected)} on the list, the aggregate and the feed; not ilike the others`, async () => {
      const list = await ctx.get('/products', { oper: within(`name|ilike|${pattern}`), pagination: { pageSize: 100 } });
      expect(list.status, list.text).to.equal(200);
      expect(names(list.body.data)).to.deep.equal([...expected].sort());
      const negated = await ctx.get('/products', { oper: within(`name|not ilike|${pattern}`), pagination: { pageSize: 100 } });
      expect(names(negated.body.data)).to.deep.equal(NAMES.filter((n) => !expected.includes(n)).sort());
      const aggregate = await ctx.get('/products/aggregate', { oper: within(`name|ilike|${pattern}`) });
      expect(aggregate.status, aggregate.text).to.equal(200);
      expect(aggregate.body.data).to.deep.equal([{ group: {}, count: expected.length }]);
      // the feed's matcher over the same records, and the events its subscriber received
      const condition = { kind: 'condition', field: 'name', operator: 'ilike', value: pattern } as Filter;
      expect(NAMES.filter((n) => matchesFilter(condition, feedRow(n), PRODUCT)).sort()).to.deep.equal([...expected].sort());
      const events = await streams[index].take(expected.length);
      expect(events.map((e) => e.data.model!.name as string).sort()).to.deep.equal([...expected].sort());
      await streams[index].none();
    });
  }

  it('like is case-sensitive on every letter', async () => {
    for (const [pattern, expected] of [['École%', ['École Bleue']], ['école%', []], ['STRAẞE%', ['STRAẞE ZWEI']], ['σοφια%', ['σοφια μικρη']], ['İ%', ['İstanbul']], ['i%', []]] as Array<[string, string[]]>) {
      const res = await ctx.get('/products', { oper: within(`name|like|${pattern}`) });
      expect(names(res.body.data), pattern).to.deep.equal(expected);
    }
  });

  it('grouped aggregates count by the same rule', async () => {
    const res = await ctx.get('/products/aggregate', { oper: { or: [within('name|ilike|%e%'), within('name|ilike|%É%')] }, group_by: ['status'], aggregate: { count: '*' } });
    expect(res.status, res.text).to.equal(200);
    const direct = await ctx.get('/products', { oper: { or: [within('name|ilike|%e%'), within('name|ilike|%é%')] }, pagination: { pageSize: 100 } });
    expect(res.body.data.reduce((n: number, g: { count: number }) => n + g.count, 0)).to.equal(direct.body.total);
    expect(names(direct.body.data)).to.deep.equal(['Strasse Drei', 'STRAẞE ZWEI', 'Straße Eins', 'École Bleue', 'ÉCOLE ROUGE', '\u212aELVIN', 'Ärger', 'ärmel'].sort());
  });

  it('a relation filter ilike follows the rule too', async () => {
    const category = await ctx.category({ name: `ÉLAN ${prefix}` });
    await ctx.product({ name: 'In Élan', sku: `${prefix}cat`, category_id: category.id });
    const res = await ctx.get('/products', { oper: { category: { and: [`name|ilike|élan ${prefix.toLowerCase()}`] } } });
    expect(names(res.body.data)).to.deep.equal(['In Élan']);
  });
});
