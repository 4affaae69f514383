/**
 * Local wall-clock time in a time zone, from Node's ICU (`Intl`): a zone's offset at an instant,
 * and the instant of a local time. The emulator's date operators use it as MongoDB uses its tz
 * database; zones are Olson names, `UTC`/`GMT`/`Z`, or fixed offsets (`+05:30`, `-0800`, `+03`).
 */
const DAY = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's fixed offset in ms for `±hh`, `±hhmm`, `±hh:mm`; null for a named zone. */
function fixedOffset(zone: string): number | null {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}

function formatter(zone: string): Intl.DateTimeFormat | null {
  const cached = formatters.get(zone);
  if (cached) return cached;
  try {
    const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    formatters.set(zone, f);
    return f;
  } catch {
    return null;
  }
}

/** Whether the emulator knows the zone (MongoDB answers 40485 for one it does not). */
export function knownZone(zone: string): boolean {
  if (zone === 'UTC' || zone === 'GMT' || zone === 'Z' || fixedOffset(zone) !== null) return true;
  return /^[A-Za-z]/.test(zone) && formatter(zone) !== null;
}

/** The zone's offset from UTC at instant `t` (ms since the epoch), in ms. */
export function zoneOffset(zone: string, t: number): number {
  if (zone === 'UTC' || zone === 'GMT' || zone === 'Z') return 0;
  const fixed = fixedOffset(zone);
  if (fixed !== null) return fixed;
  const f = formatter(zone);
  if (!f) throw new Error(`unknown zone ${zone}`);
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(new Date(t))) p[part.type] = part.value;
  const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
  const local = Date.UTC(year, Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  const whole = t - (((t % 1000) + 1000) % 1000);
  return local - whole;
}

/**
 * The instant of a local wall-clock time (`local`: ms since the epoch read as local time). A
 * time the zone skips (a spring gap) is read with the offset before the change; a time it
 * repeats (an autumn overlap) is the later instant, as PostgreSQL reads them.
 */
export function localToInstant(zone: string, local: number): number {
  const before = zoneOffset(zone, local - DAY);
  const after = zoneOffset(zone, local + DAY);
  const valid = [local - before, local - after].filter((t) => zoneOffset(zone, t) === local - t);
  if (valid.length === 0) return local - before;
  return Math.max(...valid);
}
