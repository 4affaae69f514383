import { sessionKeyOf } from './session-key';
import type { Doc } from './values';

/** Commands the driver retries as retryable writes (with lsid + txnNumber, outside a transaction). */
const RETRYABLE = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify']);

/**
 * Retryable writes run once, as on mongod: the reply of a retryable write (`lsid` + `txnNumber`, no
 * `autocommit`) that succeeded is kept per session, and the same session sending the same
 * txnNumber again (the driver's retry after a network error or a retryable writeConcernError) gets
 * that reply back without the write running twice. Only the session's latest txnNumber is kept
 * (mongod keeps the latest too); replies with write errors are not kept (a retry runs again).
 */
export class RetryableWrites {
  private readonly last = new Map<string, { txnNumber: string; reply: Doc; executed?: number }>();

  /** A retryable write command's key (session, txnNumber), or undefined for any other command. */
  keyOf(cmd: Doc): { session: string; txnNumber: string } | undefined {
    if (cmd.txnNumber === undefined || cmd.autocommit !== undefined) return undefined;
    if (!RETRYABLE.has(Object.keys(cmd)[0] ?? '')) return undefined;
    const session = sessionKeyOf(cmd.lsid);
    return session ? { session, txnNumber: String(cmd.txnNumber) } : undefined;
  }

  /** The reply of an earlier run of this retryable write, or undefined. */
  replay(cmd: Doc): Doc | undefined {
    const key = this.keyOf(cmd);
    if (!key) return undefined;
    const seen = this.last.get(key.session);
    return seen && seen.txnNumber === key.txnNumber && seen.executed === undefined ? { ...seen.reply } : undefined;
  }

  /** A retry of a write whose first `executed` statements ran (a fail point stopped it): their merged reply. */
  partial(cmd: Doc): { executed: number; reply: Doc } | undefined {
    const key = this.keyOf(cmd);
    const seen = key && this.last.get(key.session);
    return seen && seen.txnNumber === key.txnNumber && seen.executed !== undefined ? { executed: seen.executed, reply: seen.reply } : undefined;
  }

  /** Keeps the reply of the first `executed` statements of a write that did not finish. */
  recordPartial(cmd: Doc, executed: number, reply: Doc): void {
    const key = this.keyOf(cmd);
    if (!key) return;
    const { operationTime: _t, $clusterTime: _c, ...kept } = reply;
    this.last.set(key.session, { txnNumber: key.txnNumber, reply: kept, executed });
  }

  /** Keeps a successful retryable write's reply. */
  record(cmd: Doc, reply: Doc): void {
    const key = this.keyOf(cmd);
    if (!key || reply.ok !== 1 || reply.writeErrors !== undefined || reply.writeConcernError !== undefined) return;
    const { operationTime: _t, $clusterTime: _c, ...kept } = reply;
    this.last.set(key.session, { txnNumber: key.txnNumber, reply: kept });
  }

  /** endSessions: the sessions' records go. */
  forget(sessionKey: string): void {
    this.last.delete(sessionKey);
  }

  get size(): number {
    return this.last.size;
  }
}
