/**
 * The `failCommand` fail point, as mongod started with `enableTestCommands=1` has it (the
 * emulator always has test commands on). Set with the admin command
 *
 *   {configureFailPoint: 'failCommand', mode: 'alwaysOn' | 'off' | {times: n} | {skip: n},
 *    data: {failCommands: ['insert', ...], errorCode, closeConnection, blockConnection, blockTimeMS,
 *           errorLabels, writeConcernError, appName}}
 *
 * A command whose name is in `failCommands` (and whose connection's handshake gave `appName`, when
 * set) triggers it; `times`/`skip` count only such commands. Effects, in mongod's order: the
 * connection is blocked for `blockTimeMS`; `closeConnection` closes it without a reply; `errorCode`
 * fails the command without running it (`{ok: 0, code, codeName, errmsg: "Failing command via
 * 'failCommand' failpoint"}`); otherwise the command runs and `writeConcernError` is added to its
 * reply. Error labels are the server's (RetryableWriteError on a retryable code of a retryable write
 * or of commitTransaction/abortTransaction, TransientTransactionError on a transient code inside a
 * transaction) unless `errorLabels` is given, which replaces them (even when empty).
 */
import { Long, ObjectId } from 'bson';
import { CommandError, Codes } from './errors';
import { isPlainObject, type Doc } from './values';

/** Code names of the codes tests inject most; any other code answers `Location<code>`. */
const CODE_NAMES: Record<number, string> = {
  ...Object.fromEntries(Object.entries(Codes).map(([name, code]) => [code, name])),
  6: 'HostUnreachable',
  7: 'HostNotFound',
  8: 'UnknownError',
  11: 'UserNotFound',
  18: 'AuthenticationFailed',
  24: 'LockTimeout',
  64: 'WriteConcernFailed',
  89: 'NetworkTimeout',
  91: 'ShutdownInProgress',
  96: 'OperationFailed',
  133: 'FailedToSatisfyReadPreference',
  134: 'ReadConcernMajorityNotAvailableYet',
  175: 'QueryPlanKilled',
  189: 'PrimarySteppedDown',
  237: 'CursorKilled',
  246: 'SnapshotUnavailable',
  262: 'ExceededTimeLimit',
  267: 'PreparedTransactionInProgress',
  9001: 'SocketException',
  10107: 'NotWritablePrimary',
  11600: 'InterruptedAtShutdown',
  11601: 'Interrupted',
  11602: 'InterruptedDueToReplStateChange',
  13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary',
};

/** ErrorCodes::isRetriableError: the codes the retryable reads/writes specs retry on. */
export const RETRYABLE_CODES = new Set([6, 7, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** NotPrimary and shutdown errors: mongod adds its topologyVersion to them. */
const STATE_CHANGE_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);
/** isTransientTransactionError's fixed codes (the retryable ones and NoSuchTransaction are added outside commit/abort). */
const TRANSIENT_CODES = new Set([24, 112, 239, 246, 267]);
const TXN_END = new Set(['commitTransaction', 'abortTransaction']);

export function codeNameOf(code: number): string {
  return CODE_NAMES[code] ?? `Location${code}`;
}

type Mode = { kind: 'off' } | { kind: 'alwaysOn' } | { kind: 'times'; left: number } | { kind: 'skip'; left: number };

/** What a triggered fail point does to one command. */
export interface FailCommandEffect {
  blockTimeMS?: number;
  closeConnection?: boolean;
  errorCode?: number;
  errorLabels?: string[];
  writeConcernError?: Doc;
}

/** The error labels mongod puts on an error (error_labels.cpp), for a command and an error code and/or a writeConcernError code. */
export function serverErrorLabels(cmd: Doc, name: string, code: number | undefined, wcCode: number | undefined): string[] {
  const labels: string[] = [];
  const hasTxnNumber = cmd.txnNumber !== undefined;
  const inTransaction = hasTxnNumber && cmd.autocommit !== undefined;
  const retryableWrite = hasTxnNumber && cmd.autocommit === undefined;
  const endOfTransaction = inTransaction && TXN_END.has(name);
  if ((retryableWrite || endOfTransaction) && ((code !== undefined && RETRYABLE_CODES.has(code)) || (wcCode !== undefined && RETRYABLE_CODES.has(wcCode)))) {
    labels.push('RetryableWriteError');
  }
  if (inTransaction && code !== undefined) {
    const transient = TRANSIENT_CODES.has(code) || (TXN_END.has(name) ? code === 251 && wcCode === undefined : RETRYABLE_CODES.has(code) || code === 251);
    if (transient) labels.push('TransientTransactionError');
  }
  return labels;
}

/** An injected command error: mongod's reply for `errorCode`. */
export class InjectedError extends CommandError {
  constructor(code: number, labels: string[], topologyVersion: Doc | undefined, message = "Failing command via 'failCommand' failpoint") {
    super('InternalError', message, topologyVersion ? { topologyVersion } : {}, labels);
    (this as { code: number }).code = code;
    (this as { codeName: string }).codeName = codeNameOf(code);
  }
}

/** The fail points of one emulator instance (only `failCommand`), and each connection's appName. */
export class FailPoints {
  private mode: Mode = { kind: 'off' };
  private data: Doc = {};
  /** How often the fail point was triggered since it was last configured. */
  private count = 0;
  private readonly appNames = new Map<number, string>();
  /** onPrimaryTransactionalWrite: evaluated per statement of a retryable write (transactional-write.ts). */
  private writeMode: Mode = { kind: 'off' };
  private writeData: Doc = {};
  private writeCount = 0;

  /** The configureFailPoint command: `{count, ok: 1}`, count being the triggers of the previous setting. */
  configure(cmd: Doc): Doc {
    const name = cmd.configureFailPoint;
    if (typeof name !== 'string') throw new CommandError('TypeMismatch', "BSON field 'configureFailPoint' is the wrong type, expected type 'string'");
    if (name !== 'failCommand' && name !== 'onPrimaryTransactionalWrite') {
      throw new CommandError('BadValue', `${name} not found (the emulator has the failCommand and onPrimaryTransactionalWrite fail points only)`);
    }
    const mode = parseMode(cmd.mode);
    const data = cmd.data === undefined ? {} : cmd.data;
    if (!isPlainObject(data)) throw new CommandError('TypeMismatch', "the 'data' option must be an object");
    if (name === 'onPrimaryTransactionalWrite') {
      if (data.failBeforeCommitExceptionCode !== undefined && typeof data.failBeforeCommitExceptionCode !== 'number') {
        throw new CommandError('TypeMismatch', "onPrimaryTransactionalWrite: 'failBeforeCommitExceptionCode' must be a number");
      }
      const count = this.writeCount;
      this.writeMode = mode;
      this.writeData = mode.kind === 'off' ? {} : (data as Doc);
      this.writeCount = 0;
      return { count, ok: 1 };
    }
    if (mode.kind !== 'off') {
      if (!Array.isArray(data.failCommands) || !data.failCommands.every((c) => typeof c === 'string')) {
        throw new CommandError('BadValue', "failCommand fail point: 'failCommands' must be an array of command names");
      }
      for (const field of ['errorCode', 'blockTimeMS'] as const) {
        if (data[field] !== undefined && !(typeof data[field] === 'number' && Number.isInteger(Number(data[field])))) {
          throw new CommandError('TypeMismatch', `failCommand fail point: '${field}' must be an integer`);
        }
      }
      if (data.blockConnection === true && typeof data.blockTimeMS !== 'number') throw new CommandError('BadValue', "failCommand fail point: 'blockConnection' needs 'blockTimeMS'");
      if (data.errorLabels !== undefined && !(Array.isArray(data.errorLabels) && data.errorLabels.every((l) => typeof l === 'string'))) {
        throw new CommandError('TypeMismatch', "failCommand fail point: 'errorLabels' must be an array of strings");
      }
      if (data.writeConcernError !== undefined && !isPlainObject(data.writeConcernError)) throw new CommandError('TypeMismatch', "failCommand fail point: 'writeConcernError' must be an object");
    }
    const count = this.count;
    this.mode = mode;
    this.data = mode.kind === 'off' ? {} : (data as Doc);
    this.count = 0;
    return { count, ok: 1 };
  }

  /** Turns the fail point off (as between spec tests). */
  clear(): void {
    this.mode = { kind: 'off' };
    this.data = {};
    this.count = 0;
    this.writeMode = { kind: 'off' };
    this.writeData = {};
    this.writeCount = 0;
  }

  /** Whether onPrimaryTransactionalWrite is set. */
  get transactionalWriteSet(): boolean {
    return this.writeMode.kind !== 'off';
  }

  /**
   * onPrimaryTransactionalWrite over `statements` statements of a retryable write, as mongod
   * evaluates it after each statement's write: the first statement it fires on, whether that
   * statement fails before commit (failBeforeCommitExceptionCode: it and the later ones do not run)
   * and whether the connection is closed (closeConnection, default true). Without a failure code
   * every statement runs and every one consumes the mode.
   */
  transactionalWrite(statements: number): { firedAt: number; code?: number; close: boolean } | undefined {
    let firedAt: number | undefined;
    const code = typeof this.writeData.failBeforeCommitExceptionCode === 'number' ? Number(this.writeData.failBeforeCommitExceptionCode) : undefined;
    for (let i = 0; i < statements; i++) {
      if (!consume(this, 'writeMode')) continue;
      this.writeCount++;
      firedAt ??= i;
      if (code !== undefined) break;
    }
    if (firedAt === undefined) return undefined;
    return { firedAt, code, close: this.writeData.closeConnection !== false };
  }

  /** Remembers the appName a connection's handshake gave (`client.application.name`). */
  noteHandshake(connectionId: number, cmd: Doc): void {
    const client = cmd.client;
    const name = isPlainObject(client) && isPlainObject(client.application) ? client.application.name : undefined;
    if (typeof name === 'string') this.appNames.set(connectionId, name);
  }

  forgetConnection(connectionId: number): void {
    this.appNames.delete(connectionId);
  }

  /** Whether the fail point triggers for this command (consuming one of `times`/`skip`), and what it does. */
  trigger(cmd: Doc, connectionId: number): FailCommandEffect | undefined {
    if (this.mode.kind === 'off') return undefined;
    const name = Object.keys(cmd)[0] ?? '';
    const data = this.data;
    if (!(data.failCommands as string[]).includes(name)) return undefined;
    if (typeof data.appName === 'string' && this.appNames.get(connectionId) !== data.appName) return undefined;
    const mode = this.mode;
    if (mode.kind === 'skip') {
      if (mode.left > 0) {
        mode.left--;
        return undefined;
      }
    } else if (mode.kind === 'times') {
      mode.left--;
      if (mode.left <= 0) this.mode = { kind: 'off' };
    }
    this.count++;
    const effect: FailCommandEffect = {};
    if (data.blockConnection === true) effect.blockTimeMS = Number(data.blockTimeMS);
    if (data.closeConnection === true) effect.closeConnection = true;
    if (typeof data.errorCode === 'number') effect.errorCode = Number(data.errorCode);
    if (Array.isArray(data.errorLabels)) effect.errorLabels = [...(data.errorLabels as string[])];
    if (isPlainObject(data.writeConcernError)) effect.writeConcernError = data.writeConcernError as Doc;
    return effect;
  }
}

/** Evaluates a mode once (FailPoint::shouldFail): true when it fires; times and skip are counted down. */
function consume(points: FailPoints, field: 'writeMode'): boolean {
  const holder = points as unknown as Record<string, Mode>;
  const mode = holder[field];
  if (mode.kind === 'off') return false;
  if (mode.kind === 'alwaysOn') return true;
  if (mode.kind === 'skip') {
    if (mode.left > 0) {
      mode.left--;
      return false;
    }
    return true;
  }
  mode.left--;
  if (mode.left <= 0) holder[field] = { kind: 'off' };
  return true;
}

function parseMode(raw: unknown): Mode {
  if (raw === 'off') return { kind: 'off' };
  if (raw === 'alwaysOn') return { kind: 'alwaysOn' };
  if (isPlainObject(raw)) {
    const keys = Object.keys(raw);
    const n = Number(raw.times ?? raw.skip);
    if (keys.length === 1 && (keys[0] === 'times' || keys[0] === 'skip') && Number.isInteger(n) && n >= 0) {
      if (keys[0] === 'times') return n === 0 ? { kind: 'off' } : { kind: 'times', left: n };
      return { kind: 'skip', left: n };
    }
    if (keys.length === 1 && keys[0] === 'activationProbability') throw new CommandError('BadValue', 'failCommand fail point: activationProbability is not supported by the emulator');
  }
  throw new CommandError('BadValue', "'mode' must be 'off', 'alwaysOn', {times: n} or {skip: n}");
}

/** The error an `errorCode` effect answers with, labelled as mongod labels it. */
export function injectedError(effect: FailCommandEffect, cmd: Doc, processId: ObjectId, message?: string): InjectedError {
  const code = effect.errorCode as number;
  const name = Object.keys(cmd)[0] ?? '';
  const labels = effect.errorLabels ?? serverErrorLabels(cmd, name, code, undefined);
  const topologyVersion = STATE_CHANGE_CODES.has(code) ? { processId, counter: Long.fromNumber(0) } : undefined;
  return new InjectedError(code, labels, topologyVersion, message);
}

/** A reply with the fail point's writeConcernError added (and labels, as mongod adds them for it). */
export function withWriteConcernError(reply: Doc, effect: FailCommandEffect, cmd: Doc): Doc {
  const wce = effect.writeConcernError as Doc;
  const name = Object.keys(cmd)[0] ?? '';
  const out: Doc = { ...reply, writeConcernError: wce };
  const wcCode = typeof wce.code === 'number' ? wce.code : undefined;
  const code = reply.ok === 0 && typeof reply.code === 'number' ? reply.code : undefined;
  const labels = effect.errorLabels ?? [...new Set([...((reply.errorLabels as string[] | undefined) ?? []), ...serverErrorLabels(cmd, name, code, wcCode)])];
  if (labels.length) out.errorLabels = labels;
  else delete out.errorLabels;
  return out;
}
