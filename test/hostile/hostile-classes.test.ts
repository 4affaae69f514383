import { expect } from 'chai';
import { API, expectError, forEachDriver, LEAKS } from '../support/contract-app';

/**
 * The classes of hostile input around the reported cases (issue 8), table-driven on both drivers:
 * each answer is a 4xx JSON error without driver text, stack or paths, and nothing is written.
 */
forEachDriver('hostile input: classes', (ctx) => {
  before(() => ctx.reset());

  const clean = (res: { status: number; text: string; headers: Record<string, string> }) => {
    expect(res.status, res.text).to.be.within(400, 499);
    expect(res.headers['content-type']).to.match(/application\/json/);
    for (const leak of [...LEAKS, '/work/', 'node_modules', 'at ']) expect(res.text, `leaks "${leak}"`).to.not.include(leak);
  };

  it('malformed JSON in every structured parameter is a 400 naming it', async () => {
    for (const parameter of ['oper', 'attr', 'orderby', 'pagination', 'relations', 'select', 'hierarchy']) {
      const res = await ctx.request().get(`${API}/categories`).query({ [parameter]: '{"a":' });
      clean(res);
      expect(res.status).to.equal(400);
      expect(res.body.message).to.include(parameter);
    }
    const columns = await ctx.request().get(`${API}/categories/export/excel`).query({ columns: '["a",' });
    clean(columns);
    expect(columns.body.message).to.include('columns');
  });

  it('prototype keys and operator keys in bodies and filters are refused or inert', async () => {
    const before = await ctx.count('tags');
    for (const body of ['{"__proto__":{"name":"x"}}', '{"constructor":{"prototype":{"name":"x"}}}', '{"name":{"$ne":null}}', '{"name":"ok","$where":"1"}']) {
      const res = await ctx.request().post(`${API}/tags`).set('Content-Type', 'application/json').send(body);
      expect(res.status, body).to.be.oneOf([200, 422]);
      if (res.status === 200) expect(res.body.model.name).to.equal('ok');
      expect(({} as Record<string, unknown>).name).to.equal(undefined);
    }
    expect(await ctx.count('tags')).to.be.at.most(before + 1);
    for (const attr of ['{"__proto__":{"name":"x"}}', '{"name":{"$regex":".*"}}', '{"$where":"sleep(1000)"}', '{"name":{"$expr":{"$gt":[1,0]}}}']) {
      const res = await ctx.request().get(`${API}/tags`).query({ attr });
      expect(res.status, attr).to.be.oneOf([200, 400]);
      if (res.status === 200) expect(res.body.data).to.deep.equal([]);
      else clean(res);
    }
  });

  it('SQL-like payloads are values, never SQL; in field positions they are unknown fields', async () => {
    await ctx.tagRec({ name: "o'brien" });
    for (const value of ["' OR 1=1 --", "x'); DROP TABLE tags; --", '%\' OR name LIKE \'%', "o'brien"]) {
      const res = await ctx.get('/tags', { oper: { and: [`name|=|${value}`] } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.length).to.equal(value === "o'brien" ? 1 : 0);
    }
    for (const field of ['name; DROP TABLE tags', 'name"--', '1=1']) {
      const res = await ctx.get('/tags', { oper: { and: [`${field}|=|x`] } });
      clean(res);
    }
    expect((await ctx.get('/tags')).status).to.equal(200);
  });

  it('huge values: a 1 MB string, 10,000 conditions, a 100,000-element in list, 10,000 ids', async () => {
    clean(await ctx.request().post(`${API}/tags`).send({ name: 'x'.repeat(1_100_000) }));
    clean(await ctx.getWithBody('/tags', { oper: { and: Array.from({ length: 10_000 }, (_, i) => `name|=|n${i}`) } }));
    const inList = await ctx.getWithBody('/tags', { oper: { and: [`name|in|[${Array.from({ length: 100_000 }, (_, i) => `v${i}`).join(',')}]`] } });
    expect(inList.status).to.be.oneOf([200, 400, 413]);
    if (inList.status !== 200) clean(inList);
    const ids = await ctx.request().delete(`${API}/tags/batch`).send({ ids: Array.from({ length: 10_000 }, (_, i) => String(i + 1)) });
    expect(ids.status).to.be.within(400, 499);
  });

  it('forged and foreign cursors are 400s', async () => {
    for (const cursor of ['not-a-cursor', Buffer.from('{"v":[1],"f":"x"}').toString('base64url'), Buffer.from('{"__proto__":{"x":1}}').toString('base64url'), 'A'.repeat(10_000)]) {
      const res = await ctx.get('/tags', { pagination: { infinity: true, pageSize: 2, cursor } });
      clean(res);
      expect(res.status).to.equal(400);
    }
  });

  it('wrong content types, unicode and invalid UTF-8', async () => {
    const before = await ctx.count('tags');
    clean(await ctx.request().post(`${API}/tags`).set('Content-Type', 'application/json').send('\u00ff\u00fe{'));
    const text = await ctx.request().post(`${API}/tags`).set('Content-Type', 'text/plain').send('name=x');
    expect(text.status).to.be.oneOf([400, 415, 422]);
    const form = await ctx.request().post(`${API}/tags`).type('form').send({ name: 'x' });
    expect(form.status).to.be.oneOf([400, 415, 422]);
    expect(await ctx.count('tags')).to.equal(before);
    const emoji = await ctx.request().post(`${API}/tags`).send({ name: `emoji-🎉-${Date.now()}-\u202e` });
    expect(emoji.status).to.equal(200);
    const bad = await ctx.request().get(`${API}/tags?oper=%FF%FE`);
    expect(bad.status).to.be.oneOf([200, 400]);
  });

  it('parallel duplicate creates: exactly one 200, the others 409', async () => {
    const name = `dup-${Date.now()}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => ctx.request().post(`${API}/tags`).send({ name })));
    expect(answers.filter((r) => r.status === 200)).to.have.length(1);
    for (const res of answers.filter((r) => r.status !== 200)) expectError(res, 409, 'unique_violation');
  });
});
