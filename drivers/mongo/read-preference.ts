import type { Db } from 'mongodb';
import { currentReadRoute, useReplicas } from '../../lib/driver/read-route';

/**
 * Decision 86 on MongoDB: the connection's `readPreference` (from its URI) applies to the reads
 * of read routes only. Outside one (a write's reads without a session, the change feed's renders,
 * reads outside requests), within the caller's write window, and while the read cache fills (a
 * secondary's lag is not compared: the primary fills it), the read asks for the primary. Nothing
 * is asked, and no window looked up, when the connection reads from the primary anyway.
 */
export async function readPreferenceFor(db: Db): Promise<{ readPreference?: 'primary' }> {
  if ((db.readPreference?.mode ?? 'primary') === 'primary') return {};
  useReplicas();
  const route = currentReadRoute();
  if (!route || route.filling || !(await route.replicaAllowed())) return { readPreference: 'primary' };
  return {};
}
