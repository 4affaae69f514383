import type { Driver, Row } from '../driver';
import type { ModelInfo } from '../resource/model-info';
import { byIdsQuery } from '../service/reads/read-by-ids';
import { serialize } from '../service/reads/serialize';
import type { RecordedChange } from './recording-driver';
import type { ChangeEvent } from './types';

/**
 * The records a commit wrote (but those a hard delete carries, read before it), read whole (every
 * field but write-only ones, trashed included) with one read per resource, by model and key.
 */
export async function readWritten(changes: RecordedChange[], driver: Driver, model: (name: string) => ModelInfo): Promise<Map<string, Row>> {
  const toRead = new Map<string, Array<string | number>>();
  for (const change of changes) {
    if (change.before) continue;
    // pushed, not copied per change: a bulk store of 10,000 records copied 50 million keys
    const keys = toRead.get(change.model);
    if (keys) keys.push(change.key);
    else toRead.set(change.model, [change.key]);
  }
  const rows = new Map<string, Row>();
  for (const [name, ids] of toRead) {
    const info = model(name);
    const { rows: found } = await driver.list(byIdsQuery(info, ids, { select: null, relations: [] }));
    for (const row of found) rows.set(`${name}\u0000${String(row[info.key])}`, row);
  }
  return rows;
}

/** The commit's events in the order it wrote them, each with the next id; a record gone since the commit has none (its delete publishes its own). */
export function eventsOf(changes: RecordedChange[], rows: Map<string, Row>, nextId: () => string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  for (const change of changes) {
    const record = change.before ?? rows.get(`${change.model}\u0000${String(change.key)}`);
    if (!record) continue;
    events.push({ id: nextId(), model: change.model, kind: change.kind, key: change.key, record: serialize(record) as Record<string, unknown> });
  }
  return events;
}
