/**
 * `$dateTrunc` (MongoDB 5.0) as the server answers it, zones and DST included: bins of `binSize`
 * units counted from the reference instant 2000-01-01T00:00:00 local time (a Saturday). Units of
 * an hour or less are fixed lengths of local time at the date's own offset (elapsed time: the two
 * 01:00 hours of an autumn change are two bins); a day and longer follow the local calendar, the
 * bin's local start taken back to an instant through the zone (zone-clock.ts). `startOfWeek`
 * defaults to Sunday. A null or missing date, unit or zone answers null.
 */
import { CommandError } from './errors';
import { isPlainObject } from './values';
import { knownZone, localToInstant, zoneOffset } from './zone-clock';

const FIXED: Record<string, number> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000 };
const MONTHS: Record<string, number> = { month: 1, quarter: 3, year: 12 };
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const ABBREVIATED = DAYS.map((d) => d.slice(0, 3));
const DAY = 86_400_000;
const REFERENCE = Date.UTC(2000, 0, 1);
const KEYS = ['date', 'unit', 'binSize', 'timezone', 'startOfWeek'];

const floorMod = (a: number, b: number): number => ((a % b) + b) % b;
const isMissing = (v: unknown): boolean => v === null || v === undefined;

/** The day index (0 Sunday) of a startOfWeek value, or a 5439015-style error. */
function weekDay(value: unknown): number {
  const text = typeof value === 'string' ? value.toLowerCase() : '';
  const i = Math.max(DAYS.indexOf(text), ABBREVIATED.indexOf(text));
  if (i < 0) throw new CommandError('Location5439016', `$dateTrunc parameter 'startOfWeek' value cannot be recognized as a day of a week: ${String(value)}`);
  return i;
}

/** The argument object checked: only known keys, `date` and `unit` present. */
export function checkDateTruncSpec(spec: unknown): Record<string, unknown> {
  if (!isPlainObject(spec)) throw new CommandError('Location5439013', '$dateTrunc only supports an object as its argument');
  for (const key of Object.keys(spec)) {
    if (!KEYS.includes(key)) throw new CommandError('Location5439014', `Unrecognized argument to $dateTrunc: ${key}. Expected arguments are date, unit, and optionally, binSize, timezone, startOfWeek`);
  }
  if (!('date' in spec)) throw new CommandError('Location5439013', "Missing 'date' parameter to $dateTrunc");
  if (!('unit' in spec)) throw new CommandError('Location5439013', "Missing 'unit' parameter to $dateTrunc");
  return spec;
}

/** `$dateTrunc` over evaluated arguments. */
export function dateTrunc(args: { date: unknown; unit: unknown; binSize?: unknown; timezone?: unknown; startOfWeek?: unknown }): Date | null {
  const { date, unit } = args;
  if (isMissing(date) || isMissing(unit) || ('binSize' in args && isMissing(args.binSize)) || ('timezone' in args && isMissing(args.timezone))) return null;
  if (!(date instanceof Date)) throw new CommandError('Location5439012', `$dateTrunc requires 'date' to be a date, but got ${typeof date}`);
  if (typeof unit !== 'string' || !(unit in FIXED || unit in MONTHS || unit === 'day' || unit === 'week')) {
    throw new CommandError('Location5439017', `$dateTrunc parameter 'unit' value cannot be recognized as a time unit: ${String(unit)}`);
  }
  const binSize = args.binSize === undefined ? 1 : Number(args.binSize);
  if (!Number.isInteger(binSize) || binSize <= 0) throw new CommandError('Location5439018', `$dateTrunc requires 'binSize' to be greater than 0, but got value ${String(args.binSize)}`);
  const zone = args.timezone === undefined ? 'UTC' : args.timezone;
  if (typeof zone !== 'string' || !knownZone(zone)) throw new CommandError('Location40485', `$dateTrunc parameter 'timezone' value: unrecognized time zone identifier: "${String(zone)}"`);
  const startOfWeek = unit === 'week' && args.startOfWeek !== undefined && !isMissing(args.startOfWeek) ? weekDay(args.startOfWeek) : 0;
  if (unit === 'week' && isMissing(args.startOfWeek) && 'startOfWeek' in args) return null;

  const t = date.getTime();
  if (Number.isNaN(t)) return new Date(NaN);
  const offset = zoneOffset(zone, t);
  const local = t + offset;
  if (unit in FIXED) {
    const size = FIXED[unit] * binSize;
    return new Date(local - floorMod(local - REFERENCE, size) - offset);
  }
  const day = new Date(local - floorMod(local, DAY));
  if (unit in MONTHS) {
    const months = (day.getUTCFullYear() - 2000) * 12 + day.getUTCMonth();
    const start = months - floorMod(months, MONTHS[unit] * binSize);
    return new Date(localToInstant(zone, Date.UTC(2000 + Math.floor(start / 12), floorMod(start, 12), 1)));
  }
  // day and week: whole local days from the reference, weeks from the first startOfWeek on or after it
  const days = Math.round((day.getTime() - REFERENCE) / DAY);
  const first = unit === 'week' ? floorMod(startOfWeek - 6, 7) : 0;
  const size = (unit === 'week' ? 7 : 1) * binSize;
  const start = days - floorMod(days - first, size);
  return new Date(localToInstant(zone, REFERENCE + start * DAY));
}
