import type { Row } from '../../driver';
import { BadRequestError } from '../../errors';
import type { RelationLoad } from '../../query/ast';
import { loadLimitMessage } from '../../query/load-limit';

export function tooManyLoaded(limit: number): BadRequestError {
  return new BadRequestError(loadLimitMessage(limit), 'relations');
}

/**
 * Refuses an answer whose eager loads hold more than `limit` related records, counted as they
 * will be written (a record nested under two parents counts twice). Counting stops at the limit,
 * so a fan-out of millions costs `limit` steps here, before the read policy walks the rows and
 * before JSON is written: the bound that keeps one request from stalling the process.
 */
export function checkLoadedSize(rows: Row[], loads: RelationLoad[], limit: number): void {
  if (loads.length === 0) return;
  let left = limit;
  const rowsToVisit: Row[] = [];
  const loadsOf: RelationLoad[][] = [];
  for (const row of rows) {
    rowsToVisit.push(row);
    loadsOf.push(loads);
  }
  while (rowsToVisit.length > 0) {
    const row = rowsToVisit.pop() as Row;
    const list = loadsOf.pop() as RelationLoad[];
    for (const load of list) {
      const value = row[load.name];
      if (value === null || typeof value !== 'object') continue;
      const items = Array.isArray(value) ? (value as Row[]) : [value as Row];
      left -= items.length;
      if (left < 0) throw tooManyLoaded(limit);
      if (load.children.length === 0) continue;
      for (const item of items) {
        if (item === null || typeof item !== 'object') continue;
        rowsToVisit.push(item);
        loadsOf.push(load.children);
      }
    }
  }
}
