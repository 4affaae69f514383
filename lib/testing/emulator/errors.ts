/** MongoDB server error codes the emulator reports (names match the server's codeName). */
export const Codes = {
  InternalError: 1,
  BadValue: 2,
  Unauthorized: 13,
  FailedToParse: 9,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NotAReplicaSet: 76,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CursorNotFound: 43,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  WriteConflict: 112,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  DuplicateKey: 11000,
  Location40324: 40324,
  NotImplemented: 238,
  InvalidPipelineOperator: 168,
  Location40415: 40415,
  Location50851: 50851,
  DollarPrefixedFieldName: 52,
  DocumentValidationFailure: 121,
  UnsatisfiableWriteConcern: 100,
  CommandNotSupported: 115,
  CommandNotSupportedOnView: 166,
  OptionNotSupportedOnView: 167,
  ViewDepthLimitExceeded: 150,
  Location6047401: 6047401,
  InvalidIndexSpecificationOption: 197,
  CannotCreateIndex: 67,
  CannotConvertIndexToUnique: 359,
  Location51183: 51183,
  Location51132: 51132,
  Location13113: 13113,
  Location15952: 15952,
  // transactions (H2)
  ConflictingOperationInProgress: 117,
  TransactionTooOld: 225,
  SnapshotTooOld: 239,
  MaxTimeMSExpired: 50,
  OperationNotSupportedInTransaction: 263,
  NotARetryableWriteCommand: 50768,
  Location50889: 50889,
  BSONObjectTooLarge: 10334,
  // $dateTrunc
  Location40485: 40485,
  Location5439012: 5439012,
  Location5439013: 5439013,
  Location5439014: 5439014,
  Location5439015: 5439015,
  Location5439016: 5439016,
  Location5439017: 5439017,
  Location5439018: 5439018,
} as const;

export type CodeName = keyof typeof Codes;

/** An error that becomes a `{ok: 0, errmsg, code, codeName}` reply (or a write error entry). */
export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly labels: string[];
  /** Extra fields copied into the reply / write error (keyPattern, keyValue ...). */
  readonly extra: Record<string, unknown>;

  constructor(codeName: CodeName, message: string, extra: Record<string, unknown> = {}, labels: string[] = []) {
    super(message);
    this.code = Codes[codeName];
    this.codeName = codeName;
    this.extra = extra;
    this.labels = labels;
  }

  toReply(): Record<string, unknown> {
    const reply: Record<string, unknown> = { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
    if (this.labels.length) reply.errorLabels = this.labels;
    return reply;
  }

  /** Shape used inside `writeErrors`. */
  toWriteError(index: number): Record<string, unknown> {
    return { index, code: this.code, codeName: this.codeName, errmsg: this.message, ...this.extra };
  }
}

export function writeConflict(): CommandError {
  return new CommandError(
    'WriteConflict',
    'Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
    {},
    ['TransientTransactionError'],
  );
}

/**
 * Turn anything thrown while executing a command into a CommandError. mingo throws plain Errors for
 * unknown operators; they are mapped to the codes the server uses so callers see a real error.
 */
export function toCommandError(err: unknown): CommandError {
  if (err instanceof CommandError) return err;
  const message = err instanceof Error ? err.message : String(err);
  let m = /unknown (?:query|top level) operator:? ?(\$\w+)/i.exec(message);
  if (m) return new CommandError('BadValue', `unknown operator: ${m[1]}`);
  m = /unregistered pipeline operator (\$\w+)/i.exec(message);
  if (m) return new CommandError('Location40324', `Unrecognized pipeline stage name: '${m[1]}'`);
  m = /Unknown update operator: '?(\$\w+)/i.exec(message);
  if (m) return new CommandError('FailedToParse', `Unknown modifier: ${m[1]}. Expected a valid update modifier or pipeline-style update specified as an array`);
  if (/immutable field '_id'/.test(message)) return new CommandError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  m = /'?(\$\w+)'? is not registered/i.exec(message);
  if (m) return new CommandError('InvalidPipelineOperator', `Unrecognized expression '${m[1]}'`);
  return new CommandError('BadValue', message);
}
