import { Binary, Long } from 'bson';
import type { EmulatorState } from './commands';
import { isPlainObject, type Doc } from './values';

/** Fields every reply of a replica-set member carries, added once the command has run. */

/** No keys sign cluster times here (no authentication): a zero hash, key id 0. */
const SIGNATURE = { hash: new Binary(Buffer.alloc(20), 0), keyId: Long.fromNumber(0) };

/**
 * `operationTime` and `$clusterTime`: the cluster time advances with every commit (store.ts), so a
 * causally consistent session's `afterClusterTime` is always one this server has reached.
 */
export function stampClusterTime(state: EmulatorState, command: Doc, reply: Doc): void {
  unsatisfiableWriteConcern(command, reply);
  // a standalone mongod keeps no cluster time; its replies carry neither field
  if (state.profile.topology === 'standalone') return;
  const now = state.store.clusterTime();
  reply.operationTime = now;
  reply.$clusterTime = { clusterTime: now, signature: SIGNATURE };
}

/**
 * A one-member set cannot acknowledge w > 1: the write is applied and the reply carries a
 * writeConcernError, as on the server; a tag set it does not have is UnknownReplWriteConcern.
 */
function unsatisfiableWriteConcern(command: Doc, reply: Doc): void {
  const wc = command.writeConcern;
  if (!isPlainObject(wc) || reply.ok !== 1 || reply.writeConcernError) return;
  const w = wc.w;
  const errInfo = { writeConcern: { ...wc, provenance: 'clientSupplied' } };
  if (typeof w === 'number' && w > 1) {
    reply.writeConcernError = { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes', errInfo };
  } else if (typeof w === 'string' && w !== 'majority') {
    reply.writeConcernError = { code: 79, codeName: 'UnknownReplWriteConcern', errmsg: `No write concern mode named '${w}' found in replica set configuration`, errInfo };
  }
}
