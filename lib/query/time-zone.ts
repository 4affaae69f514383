/**
 * Time zone names a bucket may take (decision 84): `UTC`, or a zone of the tz database spelled as
 * it spells it (`Europe/Berlin`, `Asia/Kolkata`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`).
 * Node's ICU is the judge of which zones exist. ICU also takes offsets' cousins and any letter
 * case (`europe/berlin`, `US/EASTERN`), which MongoDB refuses: a name must also have the tz
 * database's shape, every segment capitalised and no all-capitals word beyond the tz database's
 * own (`EST5EDT`, `GMT+5`, `UTC`). A zone the SQL server does not know is a 400 there too.
 */
const SHAPE = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*){0,2}$/;
const CAPITALS = /^(\d+|[A-Z]{1,4}|[A-Z]{3,4}\d[A-Z]{3,4}|[A-Z]{3,4}[+-]?\d{1,2})$/;

/**
 * Names the tz database has removed (2017c, 2020b) that Node's ICU still resolves: PostgreSQL and
 * MongoDB, built on a newer tz database, refuse them, so they are refused here for both drivers.
 */
const REMOVED = new Set(['US/Pacific-New', 'Canada/East-Saskatchewan']);

const known = new Map<string, boolean>();

function capitalised(name: string): boolean {
  return name.split(/[/_-]/).every((word) => /[a-z]/.test(word) || CAPITALS.test(word));
}

/** Whether `name` is a zone name a bucket takes. */
export function isTimeZoneName(name: string): boolean {
  if (name === 'UTC') return true;
  if (name.length > 64 || !SHAPE.test(name) || !capitalised(name) || REMOVED.has(name)) return false;
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  let ok: boolean;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    ok = true;
  } catch {
    ok = false;
  }
  if (known.size < 2000) known.set(name, ok);
  return ok;
}
