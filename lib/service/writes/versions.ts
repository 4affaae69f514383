import type { Id, Row } from '../../driver';
import { BadRequestError, PreconditionFailedError, PreconditionRequiredError } from '../../errors';
import type { ResourceEntry } from '../declarations/registry';

/**
 * Decision 81, the service's part: what an `If-Match` header asks of a single-record write, and
 * the version a batch item carries. The comparison itself happens inside the write (the driver's
 * UPDATE or MongoDB filter, `UpdateItem.expected`); this file only reads the request and words
 * the answers.
 */

/** What a write of one record must find: nothing (no header), any existing record (`*`), or a version. */
export type Precondition = { kind: 'none' } | { kind: 'any' } | { kind: 'version'; expected: number };

/** Never matches a stored version: a weak tag, or a tag that is not one of ours. */
export const NEVER = -1;

/** The version ETag of a record (`"3"`), or null when the resource has no version field or the row lacks it. */
export function versionTag(entry: ResourceEntry, row: Row | undefined | null): string | null {
  const field = entry.info.versionField;
  if (!field || !row) return null;
  const version = row[field];
  return typeof version === 'number' ? `"${version}"` : null;
}

/**
 * Reads `If-Match` for a PUT, PATCH or DELETE of one record. Without a version field the header is
 * a 400; with `requireIfMatch` its absence is a 428. A strong tag's part before the first dot is
 * the version (`"3"`, `"3.ab12"`); a weak tag never matches (RFC 9110 strong comparison).
 */
export function readIfMatch(entry: ResourceEntry, header: string | undefined): Precondition {
  const field = entry.info.versionField;
  const given = header !== undefined && header.trim() !== '';
  if (!field) {
    if (given) throw new BadRequestError(`If-Match is not supported on ${entry.declaration.name}: the resource declares no version field.`, 'If-Match');
    return { kind: 'none' };
  }
  if (!given) {
    if (entry.declaration.requireIfMatch) throw new PreconditionRequiredError();
    return { kind: 'none' };
  }
  const tags = header!.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (tags.includes('*')) return { kind: 'any' };
  for (const tag of tags) {
    const match = /^"(\d{1,15})(?:\.[^"]*)?"$/.exec(tag);
    if (match) return { kind: 'version', expected: Number(match[1]) };
  }
  return { kind: 'version', expected: NEVER };
}

/** The `expected` of an update item under a precondition (undefined: none). */
export function expectedOf(precondition: Precondition): number | undefined {
  return precondition.kind === 'version' ? precondition.expected : undefined;
}

/**
 * A batch item's `version` (decision 81: its precondition); absent or null means none. A value
 * that is not a non-negative integer can never match.
 */
export function itemVersion(item: unknown): number | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const version = (item as { version?: unknown }).version;
  if (version === undefined || version === null) return undefined;
  return typeof version === 'number' && Number.isInteger(version) && version >= 0 ? version : NEVER;
}

/** The 412 of a single-record write, with the record's current tag. */
export function staleRecord(entry: ResourceEntry, current: Row | undefined): PreconditionFailedError {
  return new PreconditionFailedError(versionTag(entry, current));
}

/** The 412 of a batch: the ids whose version was not the one their item carried. */
export function staleBatch(ids: Id[]): PreconditionFailedError {
  return new PreconditionFailedError(null, ids);
}
