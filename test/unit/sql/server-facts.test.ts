import { expect } from 'chai';
import { Client } from 'pg';
import { lowerSql } from '../../../drivers/sql/case-fold';
import { learnServerFacts } from '../../../drivers/sql/server-facts';
import type { SqlStatement } from '../../../drivers/sql/sql-builder';
import { simpleLower } from '../../../lib/query/simple-lower';
import { sharedPostgres } from '../../support/databases';

/**
 * The facts the SQL driver compiles by, asked of the test server (the embedded PostgreSQL 18, or
 * DATABASE_URL: run it against a PostgreSQL 15 to see the pre-17 path): the version, and a case
 * fold under which `lower()` follows decision 73's rule on this server.
 */
describe('sql server facts: asked of a real server', function () {
  this.timeout(60_000);
  let client: Client;
  const statements: SqlStatement[] = [];
  const run = async (statement: SqlStatement) => {
    statements.push(statement);
    return (await client.query(statement.sql, statement.bind)).rows as Record<string, unknown>[];
  };

  before(async () => {
    client = new Client({ connectionString: (await sharedPostgres()).uri });
    await client.connect();
  });
  after(async () => {
    await client.end();
  });

  it('the version, pg_c_utf8 from 17 in one statement, a probe of the candidates before', async () => {
    const facts = await learnServerFacts(run);
    const { rows } = await client.query<{ server_version_num: string }>('SHOW server_version_num');
    expect(facts.version).to.equal(Number(rows[0].server_version_num));
    if (facts.version >= 170000) {
      expect(facts.caseFold).to.equal('pg_c_utf8');
      expect(statements).to.have.length(1);
    } else {
      expect(facts.caseFold).to.not.equal('pg_c_utf8');
      expect(statements.length).to.be.within(1, 2);
    }
  });

  it('lower() under the chosen fold lowers the contract suite\'s names by the rule (libc and builtin folds)', async function () {
    const { caseFold } = await learnServerFacts(run);
    // ICU lowers `İ` to two code points and a final `Σ` to `ς`; a default fold is the locale's
    if (caseFold !== 'pg_c_utf8' && caseFold !== 'C.utf8' && caseFold !== 'C.UTF-8') this.skip();
    const words = ['École Bleue', 'STRAẞE ZWEI', 'ΣΟΦΙΑ', 'ΟΔΟΣ', 'Ärger', 'ПРИВЕТ', 'İstanbul', 'ıslak', '\u212aELVIN', 'ǅ', 'ᾈ'];
    const { rows } = await client.query<{ l: string }>(`SELECT ${lowerSql('"w"', caseFold)} AS "l" FROM unnest($1::text[]) WITH ORDINALITY AS "p"("w", "i") ORDER BY "i"`, [words]);
    expect(rows.map((r) => r.l)).to.deep.equal(words.map(simpleLower));
  });
});
