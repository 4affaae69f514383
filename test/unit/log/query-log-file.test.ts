import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLoggers } from '../../../lib/log/logger';

/** LOG_QUERY_FILE: the query channel writes JSON lines to a file rotated by size (winston File transport). */
describe('query log file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grr-qlog-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('one JSON line per query, with the query channel and a timestamp; other channels stay on the logger', async () => {
    const file = join(dir, 'query.log');
    const log = createLoggers(undefined, { queryLogFile: file });
    log.query.info('product.index', { model: 'product', action: 'index', duration_ms: 1.5 });
    log.query.info('tag.index', { model: 'tag', action: 'index' });
    await log.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.message)).to.deep.equal(['product.index', 'tag.index']);
    expect(lines[0]).to.include({ channel: 'query', model: 'product', action: 'index', duration_ms: 1.5, level: 'info' });
    expect(lines[0].timestamp).to.be.a('string');
  });

  it('rotates when the file reaches its size, keeping at most maxFiles files', async () => {
    const file = join(dir, 'query.log');
    const log = createLoggers(undefined, { queryLogFile: file, queryLogMaxSize: 2000, queryLogMaxFiles: 3 });
    for (let i = 0; i < 60; i += 1) {
      log.query.info(`product.index ${i}`, { padding: 'x'.repeat(100) });
      await new Promise((resolve) => setTimeout(resolve, 5)); // the transport checks its size between writes
    }
    await log.close();
    const files = (await readdir(dir)).filter((f) => f.startsWith('query'));
    expect(files.length).to.be.within(2, 3);
    expect(files).to.include('query.log');
  });

  it('without a file the query channel is a child of the application logger', () => {
    const log = createLoggers();
    expect(log.query).not.to.equal(log.app);
    return log.close();
  });
});
