import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { match } from './matcher';
import type { EntityMap } from './entities';
import type { Json } from './load';
import { bulkResult } from './operations';

type DriverError = Error & {
  code?: unknown;
  codeName?: unknown;
  errmsg?: unknown;
  errorResponse?: Json;
  hasErrorLabel?: (label: string) => boolean;
  errorLabels?: string[];
};

function fail(message: string): never {
  throw new Error(`expectError: ${message}`);
}

/** Asserts an `expectedError` (unified format) against what the operation threw. */
export function checkError(expected: Json, error: unknown, entities: EntityMap): void {
  if (!(error instanceof Error)) fail(`the operation threw a non-error ${String(error)}`);
  const err = error as DriverError;
  const fromServer = err instanceof MongoServerError;
  const labels = (l: string): boolean => (err.hasErrorLabel ? err.hasErrorLabel(l) : (err.errorLabels ?? []).includes(l));
  if (expected.isClientError === true && fromServer) fail(`expected a client error, got a server error: ${err.message}`);
  if (expected.isClientError === false && !fromServer) fail(`expected a server error, got a client error: ${err.message}`);
  if (expected.isTimeoutError === true) fail('timeout errors are not asserted by this runner');
  if (typeof expected.errorContains === 'string' && !err.message.toLowerCase().includes(expected.errorContains.toLowerCase())) {
    fail(`message ${JSON.stringify(err.message)} does not contain ${JSON.stringify(expected.errorContains)}`);
  }
  if (expected.errorCode !== undefined && err.code !== expected.errorCode) fail(`code ${String(err.code)} (${String(err.codeName)}: ${err.message}), expected ${String(expected.errorCode)}`);
  if (typeof expected.errorCodeName === 'string' && String(err.codeName).toLowerCase() !== expected.errorCodeName.toLowerCase()) {
    fail(`codeName ${String(err.codeName)} (${err.message}), expected ${expected.errorCodeName}`);
  }
  for (const l of (expected.errorLabelsContain as string[]) ?? []) if (!labels(l)) fail(`label ${l} missing (labels: ${JSON.stringify(err.errorLabels ?? [])}; ${err.message})`);
  for (const l of (expected.errorLabelsOmit as string[]) ?? []) if (labels(l)) fail(`label ${l} present (${err.message})`);
  if (expected.errorResponse !== undefined) {
    if (!fromServer) fail(`errorResponse expected, got a client error: ${err.message}`);
    match(expected.errorResponse, err.errorResponse ?? err, { entities });
  }
  if (expected.expectResult !== undefined) {
    const result = err instanceof MongoBulkWriteError ? bulkResult(err.result) : undefined;
    match(expected.expectResult, result, { entities });
  }
  if (expected.writeErrors !== undefined || expected.writeConcernErrors !== undefined) fail('writeErrors/writeConcernErrors (client bulk write) are not asserted by this runner');
}
