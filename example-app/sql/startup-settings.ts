import { Client } from 'pg';

/** The example's server timeouts (ms): a statement 30 s at most, a transaction may idle 60 s. */
export const TIMEOUTS = { statement_timeout: 30_000, idle_in_transaction_session_timeout: 60_000 };

/**
 * Whether settings sent as connection startup parameters hold on `uri`: true on a direct
 * connection; false behind a pooler that refuses them (a stock PgBouncer: "unsupported startup
 * parameter") or drops them (one told to ignore them: the server then reports its own default).
 * Behind one, the driver sets them per transaction instead (`SET LOCAL`, decision 85); directly,
 * startup parameters cost nothing per request. Any other failure answers true: connecting is
 * then the caller's to report.
 */
export async function startupSettingsHold(uri: string): Promise<boolean> {
  const client = new Client({ connectionString: uri, statement_timeout: TIMEOUTS.statement_timeout, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    return !/unsupported startup parameter/i.test(String((error as Error).message));
  }
  try {
    const { rows } = await client.query<{ statement_timeout: string }>('SHOW statement_timeout');
    return rows[0]?.statement_timeout === `${TIMEOUTS.statement_timeout / 1000}s`;
  } catch {
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
