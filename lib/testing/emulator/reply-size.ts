import { calculateObjectSize } from 'bson';
import { CommandError } from './errors';
import type { Doc } from './values';

/** The largest BSON object the server builds (16 MiB user documents + 16 KiB of headroom), as mongod says it. */
export const BSON_OBJECT_LIMIT = 16 * 1024 * 1024 + 16 * 1024;

/** Every BSON element takes at least 2 bytes (type byte, empty name's NUL): more elements than this cannot fit. */
const MOST_ELEMENTS = Math.floor(BSON_OBJECT_LIMIT / 2);

/**
 * The BSON size of `doc`, or null when it is certainly over the limit: elements are counted first
 * with an early stop, so a result of millions of nested (possibly shared) objects costs a bounded
 * walk here instead of a serialization that throws RangeError far past the limit.
 */
export function boundedBsonSize(doc: Doc): number | null {
  let elements = 0;
  const stack: unknown[] = [doc];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    // BSON values with their own encoding (ObjectId, Date, Binary, Long...) count as one element
    const proto = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) continue;
    if (Array.isArray(value)) {
      elements += value.length;
      for (let i = 0; i < value.length; i += 1) stack.push(value[i]);
    } else {
      for (const key in value) {
        elements += 1;
        stack.push((value as Doc)[key]);
      }
    }
    if (elements > MOST_ELEMENTS) return null;
  }
  return calculateObjectSize(doc);
}

/** MongoDB's error for a result document over the BSON limit (code 10334, BSONObjectTooLarge). */
export function objectTooLarge(size: number | null, doc?: Doc): CommandError {
  const shown = size === null ? `more than ${BSON_OBJECT_LIMIT}` : `${size} (0x${size.toString(16).toUpperCase()})`;
  const first = doc ? Object.keys(doc)[0] : undefined;
  const element = first === undefined ? 'EOO' : `${first}: ${describe(doc?.[first])}`;
  return new CommandError('BSONObjectTooLarge', `BSONObj size: ${shown} is invalid. Size must be between 0 and ${BSON_OBJECT_LIMIT}(16MB) First element: ${element}`);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') {
    const hex = (value as { toHexString?: () => string }).toHexString;
    return typeof hex === 'function' ? `ObjectId('${hex.call(value)}')` : '{ ... }';
  }
  return JSON.stringify(value).slice(0, 100);
}

/** Refuses one result document larger than the server could build. */
export function checkDocumentSize(doc: Doc): number {
  const size = boundedBsonSize(doc);
  if (size === null || size > BSON_OBJECT_LIMIT) throw objectTooLarge(size, doc);
  return size;
}
