import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_STATUS } from '../../../lib/errors';

/** The README's error table is the catalogue: same types, same statuses, nothing missing or extra. */
describe('error catalogue', () => {
  it('the README error table lists exactly the catalogue, with its statuses', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Errors'), readme.indexOf('\n## ', readme.indexOf('## Errors') + 1));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).to.deep.equal(ERROR_STATUS);
  });
});
