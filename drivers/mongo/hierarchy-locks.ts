import type { ClientSession, Db } from 'mongodb';
import { lockRecords } from './reference-locks';

/**
 * One lock document per collection with a hierarchy: two transactions moving records of it write
 * it, so the later one conflicts (WriteConflict), is retried, and its cycle check reads the move
 * the other committed (snapshot isolation alone lets both pass their checks: write skew).
 */
export async function lockHierarchyOf(db: Db, session: ClientSession, collection: string): Promise<void> {
  await lockRecords(db, session, [`__hierarchy:${collection}`]);
}
