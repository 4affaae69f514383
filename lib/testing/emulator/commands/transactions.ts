import { Timestamp } from 'bson';
import { CommandError } from '../errors';
import { isPlainObject, type Doc } from '../values';
import type { Collection } from '../store';
import type { Transaction } from '../transactions';
import type { EmulatorState, Handler } from './context';

/** Commands a 7.0 server runs inside a multi-document transaction (Command::allowedInTransactions). */
const ALLOWED_IN_TRANSACTION = new Set([
  'find', 'getMore', 'killCursors', 'aggregate', 'distinct', 'insert', 'update', 'delete',
  'findAndModify', 'findandmodify', 'create', 'createIndexes', 'commitTransaction', 'abortTransaction',
]);
/** Commands that need no authentication: the server answers "not supported in transactions" for them. */
const NO_AUTH = new Set(['hello', 'isMaster', 'ismaster', 'ping', 'buildInfo', 'saslStart', 'saslContinue', 'authenticate', 'logout', 'getnonce']);
/** Commands that may carry a txnNumber outside a transaction (retryable writes). */
const RETRYABLE_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify']);
const TXN_CONTROL = new Set(['commitTransaction', 'abortTransaction']);
const READ_CONCERN_LEVELS = new Set(['local', 'majority', 'snapshot']);

function invalid(message: string): CommandError {
  return new CommandError('InvalidOptions', message);
}

function notInTransaction(message: string): CommandError {
  return new CommandError('OperationNotSupportedInTransaction', message);
}

/** NoSuchTransaction, labelled as the server labels it inside a transaction. */
function noSuchTransaction(message: string): CommandError {
  return new CommandError('NoSuchTransaction', message, {}, ['TransientTransactionError']);
}

function txnNumberOf(cmd: Doc): number | undefined {
  const raw = cmd.txnNumber;
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new CommandError('TypeMismatch', "BSON field 'OperationSessionInfo.txnNumber' is the wrong type, expected type 'long'");
  return n;
}

/**
 * The transaction a command runs in, as the server resolves it: session fields validated
 * (initializeOperationSessionInfo, validateSessionOptions), then the session's transaction begun or
 * continued (TransactionParticipant::beginOrContinue, _checkIsCommandValidWithTxnState). Errors
 * thrown here leave the session's transaction as it was; errors of the command itself abort it.
 */
export function resolveTransaction(state: EmulatorState, cmd: Doc, name: string, sessionKey: string | undefined): Transaction | undefined {
  const txnNumber = txnNumberOf(cmd);
  const autocommit = cmd.autocommit;
  const start = cmd.startTransaction;
  if (NO_AUTH.has(name)) {
    if (autocommit !== undefined) throw notInTransaction('This command is not supported in transactions');
    if (txnNumber !== undefined) throw new CommandError('Location50889', 'It is illegal to provide a txnNumber for this command');
  }
  if (txnNumber !== undefined && !sessionKey) throw invalid('Transaction number requires a session ID to also be specified');
  if (txnNumber !== undefined && txnNumber < 0) throw invalid('Transaction number cannot be negative');
  if (txnNumber === undefined && autocommit !== undefined) throw invalid("'autocommit' field requires a transaction number to also be specified");
  if (autocommit !== undefined && autocommit !== false) throw invalid('Specifying autocommit=true is not allowed.');
  if (autocommit === undefined && start !== undefined) throw invalid("'startTransaction' field requires 'autocommit' field to also be specified");
  if (start !== undefined && start !== true) throw invalid('Specifying startTransaction=false is not allowed.');

  if (autocommit === false) {
    if (name === 'count') {
      throw notInTransaction("Cannot run 'count' in a multi-document transaction. Please see http://dochub.mongodb.org/core/transaction-count for a recommended alternative.");
    }
    if (!ALLOWED_IN_TRANSACTION.has(name)) throw notInTransaction(`Cannot run '${name}' in a multi-document transaction.`);
  } else if (txnNumber !== undefined && !RETRYABLE_WRITES.has(name)) {
    throw new CommandError('NotARetryableWriteCommand', `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${name} is not a retryable write command.`);
  }
  if (start === true) {
    if (name === 'killCursors') throw notInTransaction('Cannot run killCursors as the first operation in a multi-document transaction.');
    if (name === 'commitTransaction') throw notInTransaction('Cannot start a transaction with a commit');
    if (name === 'abortTransaction') throw notInTransaction('Cannot start a transaction with an abort');
  }
  if (autocommit !== false || !sessionKey || txnNumber === undefined) return undefined;

  const latest = state.txns.latest(sessionKey);
  if (latest && txnNumber < latest.txnNumber) {
    throw new CommandError(
      'TransactionTooOld',
      `Cannot start transaction with { txnNumber: ${txnNumber}, txnRetryCounter: 0 } on session ${sessionKey} because a newer transaction with txnNumberAndRetryCounter ${latest.label} has already started on this session.`,
    );
  }
  const readConcern = cmd.readConcern;
  if (start === true) {
    if (latest && latest.txnNumber === txnNumber) {
      throw new CommandError('ConflictingOperationInProgress', 'Only servers in a sharded cluster can start a new transaction at the active transaction number');
    }
    if (readConcern !== undefined) checkTransactionReadConcern(readConcern);
    checkNoWriteConcern(cmd, name);
    return state.txns.start(sessionKey, txnNumber);
  }
  if (!latest || latest.txnNumber !== txnNumber) {
    throw noSuchTransaction(`Given transaction number ${txnNumber} does not match any in-progress transactions. The active transaction number is ${latest ? latest.txnNumber : -1}`);
  }
  if (latest.state === 'aborted') throw noSuchTransaction(`Transaction with ${latest.label} has been aborted.`);
  if (latest.state === 'committed' && name !== 'commitTransaction') {
    throw new CommandError('TransactionCommitted', `Transaction with ${latest.label} has been committed.`);
  }
  if (readConcern !== undefined && !TXN_CONTROL.has(name)) throw invalid('Only the first command in a transaction may specify a readConcern');
  checkNoWriteConcern(cmd, name);
  return latest;
}

function checkTransactionReadConcern(readConcern: unknown): void {
  if (!isPlainObject(readConcern)) throw new CommandError('TypeMismatch', "BSON field 'readConcern' is the wrong type, expected type 'object'");
  const level = readConcern.level;
  if (level !== undefined && !READ_CONCERN_LEVELS.has(String(level))) {
    throw invalid(`The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction`);
  }
  if (readConcern.atClusterTime !== undefined) {
    throw new CommandError('NotImplemented', 'readConcern atClusterTime inside a transaction is not supported by the MongoDB emulator');
  }
}

function checkNoWriteConcern(cmd: Doc, name: string): void {
  if (cmd.writeConcern !== undefined && !TXN_CONTROL.has(name)) throw invalid('writeConcern is not allowed within a multi-statement transaction');
}

const control: (name: 'commitTransaction' | 'abortTransaction') => Handler = (name) => (ctx) => {
  if (ctx.db !== 'admin') throw new CommandError('Unauthorized', `${name} may only be run against the admin database.`);
  const txn = ctx.txn;
  if (!txn) throw invalid(`${name} must be run within a transaction`);
  if (name === 'commitTransaction') ctx.state.txns.commit(txn);
  else if (txn.state === 'committed') throw new CommandError('TransactionCommitted', `Transaction with ${txn.label} has been committed.`);
  else ctx.state.txns.abort(txn);
  // an unsatisfiable writeConcern is reported with the reply's envelope (envelope.ts), after the commit
  return { ok: 1 };
};

export const transactionCommands: Record<string, Handler> = {
  commitTransaction: control('commitTransaction'),
  abortTransaction: control('abortTransaction'),
};

/** An open transaction that created `coll` or has pending writes to it. */
export function heldBy(txns: EmulatorState['txns'], coll: Collection): Transaction | undefined {
  if (coll.pendingIn) return coll.pendingIn as Transaction; // only scope.ts sets it, to a Transaction
  for (const t of txns.othersWriting(coll)) return t;
  return undefined;
}

/** MongoDB's minSnapshotHistoryWindowInSeconds: how long a snapshot read's time stays readable. */
export const SNAPSHOT_HISTORY_MS = 300_000;
/** Commands that take readConcern level snapshot outside a transaction. */
const SNAPSHOT_READS = new Set(['find', 'aggregate', 'distinct', 'getMore']);

/**
 * readConcern {level: 'snapshot'} outside a transaction: the commit sequence the command reads as
 * of (atClusterTime, or now: then kept readable for the history window so the session's later
 * reads at that time see the same state); undefined for any other read concern.
 */
export function snapshotReadAt(state: EmulatorState, cmd: Doc, name: string): number | undefined {
  const readConcern = cmd.readConcern;
  if (cmd.autocommit !== undefined || !isPlainObject(readConcern)) return undefined;
  if (readConcern.level !== 'snapshot') {
    if (readConcern.atClusterTime !== undefined) throw invalid('readConcern.atClusterTime is only valid with level snapshot');
    return undefined;
  }
  if (!SNAPSHOT_READS.has(name)) throw invalid(`Command ${name} does not support { readConcern: { level: "snapshot" } }`);
  if (name === 'getMore') return undefined; // the cursor was computed at its snapshot
  const at = readConcern.atClusterTime;
  const store = state.store;
  if (at === undefined) {
    const seq = store.currentSeq;
    store.snapshots.pin(seq, SNAPSHOT_HISTORY_MS);
    return seq;
  }
  if (!(at instanceof Timestamp)) throw new CommandError('TypeMismatch', "BSON field 'readConcern.atClusterTime' is the wrong type, expected type 'timestamp'");
  const seq = store.seqOf(at);
  if (seq > store.currentSeq) {
    throw invalid(`readConcern atClusterTime value must not be greater than the current clusterTime. Requested clusterTime: ${at.toString()}; current clusterTime: ${store.clusterTime().toString()}`);
  }
  if (seq !== store.currentSeq && !store.snapshots.isOpen(seq)) {
    throw new CommandError('SnapshotTooOld', `Read timestamp ${at.toString()} is older than the oldest available timestamp.`);
  }
  return seq;
}
