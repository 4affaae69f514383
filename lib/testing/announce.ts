/** Prints, once per process and engine, which backend the testing kit chose and why. */
const announced = new Set<string>();

export function announce(engine: string, message: string): void {
  if (announced.has(engine) || process.env.TESTKIT_QUIET === '1') return;
  announced.add(engine);
  process.stderr.write(`[testing-kit] ${engine}: ${message}\n`);
}
