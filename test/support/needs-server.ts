/**
 * Tests against a server the machine may lack (pgbouncer): pending locally with the reason printed,
 * a failure under CI=true (.ci/run installs it).
 */
export function skipUnless(ctx: Mocha.Context, available: boolean, reason: string): void {
  if (available) return;
  if (process.env.CI === 'true') throw new Error(`${reason} (required under CI=true: .ci/run installs it)`);
  process.stderr.write(`[pending] ${reason}\n`);
  ctx.skip();
}
