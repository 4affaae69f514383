import { Timestamp } from 'bson';
import { Aggregator } from 'mingo';
import { CommandError, toCommandError } from '../errors';
import type { Collection } from '../store';
import { isPlainObject, type Doc } from '../values';

/**
 * Options several commands share: `let`, `collation`, `hint`. What the emulator cannot honour is
 * refused with MongoDB's error; nothing is silently ignored.
 */

/** A user variable name: starts with a lowercase letter (or a non-ASCII character), then word characters. */
const VARIABLE_NAME = /^[a-z\u0080-\uffff][\w\u0080-\uffff]*$/;

/** The command's `let`: each value is an expression evaluated once, as the server does. */
export function letVariables(value: unknown, command: string): Doc | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw new CommandError('TypeMismatch', `BSON field '${command}.let' is the wrong type '${typeof value}', expected type 'object'`);
  const out: Doc = {};
  for (const [name, expr] of Object.entries(value)) {
    if (!VARIABLE_NAME.test(name)) throw new CommandError('FailedToParse', `'${name}' starts with an invalid character for a user variable name`);
    try {
      out[name] = (new Aggregator([{ $replaceWith: { v: expr } }]).run([{}])[0] as Doc).v;
    } catch (err) {
      throw toCommandError(err);
    }
  }
  return out;
}

/**
 * A collection's or an index's default collation: only the simple (binary) one is implemented; a
 * command's own collation goes through collation.ts.
 */
export function checkCollation(value: unknown, field = 'collation'): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) throw new CommandError('TypeMismatch', `BSON field '${field}' is the wrong type '${typeof value}', expected type 'object'`);
  if (value.locale === 'simple' && Object.keys(value).length === 1) return;
  throw new CommandError('NotImplemented', `a default collation (${field}: ${JSON.stringify(value)}) is not supported by the MongoDB emulator (only {locale: 'simple'})`);
}

/**
 * A hint only chooses a plan on the server, so results do not depend on it; what is checked is
 * that it names an existing index (or $natural), as the server does.
 */
export function checkHint(coll: Collection | undefined, hint: unknown): void {
  if (hint === undefined || !coll) return;
  if (typeof hint === 'string') {
    if (hint === '' ) return;
    if (coll.indexes.some((i) => i.spec.name === hint)) return;
  } else if (isPlainObject(hint)) {
    if (Object.keys(hint).length === 0) return;
    if ('$natural' in hint) return;
    const key = JSON.stringify(hint);
    if (coll.indexes.some((i) => JSON.stringify(i.spec.key) === key)) return;
  } else {
    throw new CommandError('FailedToParse', 'hint must be a string or an object');
  }
  throw new CommandError('BadValue', 'error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index');
}

/** Commands that may read at readConcern snapshot outside a transaction. */
const SNAPSHOT_READS = new Set(['find', 'aggregate', 'distinct', 'getMore']);

/**
 * readConcern: a known level; snapshot outside a transaction only on the commands that allow it;
 * afterClusterTime not ahead of the server's cluster time (`now`).
 */
export function checkReadConcern(command: string, readConcern: unknown, inTransaction: boolean, now: Timestamp): void {
  if (readConcern === undefined || inTransaction) return;
  if (!isPlainObject(readConcern)) throw new CommandError('TypeMismatch', "BSON field 'readConcern' is the wrong type, expected type 'object'");
  const level = readConcern.level ?? 'local';
  if (!['local', 'majority', 'linearizable', 'available', 'snapshot'].includes(String(level))) {
    throw new CommandError('FailedToParse', `readConcern level: ${String(level)} is not a valid read concern level`);
  }
  if (level === 'snapshot' && !SNAPSHOT_READS.has(command)) {
    throw new CommandError('InvalidOptions', `Command ${command} does not support { readConcern: { level: "snapshot" } }`);
  }
  const after = readConcern.afterClusterTime;
  if (after !== undefined) {
    if (!(after instanceof Timestamp)) throw new CommandError('TypeMismatch', "BSON field 'readConcern.afterClusterTime' is the wrong type, expected type 'timestamp'");
    if (after.greaterThan(now)) {
      throw new CommandError('InvalidOptions', `readConcern afterClusterTime value must not be greater than the current clusterTime. Requested clusterTime: ${after.toString()}; current clusterTime: ${now.toString()}`);
    }
  }
}
