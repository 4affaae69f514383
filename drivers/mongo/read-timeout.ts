/** REST_DB_TIMEOUT_MS (default 30 s): the server-side limit of every read's aggregation. */
export function readTimeoutMs(): number {
  const n = Number(process.env.REST_DB_TIMEOUT_MS);
  return Number.isSafeInteger(n) && n > 0 ? n : 30_000;
}
