import type { Json, SpecFile, SpecTest } from './load';
import { driverDeviation } from './driver-deviations';
import { isSupported } from './operations';
import { unmetAll, type ServerInfo } from './requirements';

/** Fail points the emulator has (lib/testing/emulator/fail-point.ts), and the data fields it honours. */
const FAIL_POINT_DATA: Record<string, Set<string>> = {
  failCommand: new Set(['failCommands', 'errorCode', 'closeConnection', 'blockConnection', 'blockTimeMS', 'errorLabels', 'writeConcernError', 'appName']),
  onPrimaryTransactionalWrite: new Set(['closeConnection', 'failBeforeCommitExceptionCode']),
};

/** Why a test's fail points cannot be set on the emulator, or undefined. */
function failPointReason(ops: Json[]): string | undefined {
  for (const op of ops) {
    if (op.name !== 'failPoint' && op.name !== 'targetedFailPoint') continue;
    const fp = ((op.arguments as Json | undefined)?.failPoint ?? {}) as Json;
    const name = String(fp.configureFailPoint);
    const fields = FAIL_POINT_DATA[name];
    if (!fields) return `fail point ${name} (the emulator has failCommand and onPrimaryTransactionalWrite only)`;
    const extra = Object.keys((fp.data ?? {}) as Json).find((k) => !fields.has(k));
    if (extra) return `${name} data field ${extra} (not implemented by the emulator)`;
  }
  return undefined;
}

function operationsOf(ops: Json[]): Json[] {
  const out: Json[] = [];
  for (const op of ops) {
    out.push(op);
    const callback = (op.arguments as Json | undefined)?.callback;
    if (op.name === 'withTransaction' && Array.isArray(callback)) out.push(...operationsOf(callback as Json[]));
  }
  return out;
}

const ENTITY_TYPES = new Set(['client', 'database', 'collection', 'session']);

function unsupportedEntity(specs: Json[] | undefined): string | undefined {
  for (const spec of specs ?? []) {
    const [type] = Object.keys(spec);
    if (!ENTITY_TYPES.has(type)) return `unsupported entity: ${type}`;
    const def = spec[type] as Json;
    if (type === 'client' && (def.observeLogMessages || def.storeEventsAsEntities || def.serverApi || def.autoEncryptOpts)) return 'unsupported entity: client with log messages/stored events/serverApi/encryption';
  }
  return undefined;
}

/**
 * Why a test is not run, as a countable reason: requirements a one-member 7.0 replica set does not
 * meet, fail points, or what the runner does not implement. Undefined: the test runs.
 */
export function skipReason(file: SpecFile, test: SpecTest, info: ServerInfo): string | undefined {
  if (!/^1\./.test(String(file.schemaVersion))) return `unsupported schema version ${file.schemaVersion}`;
  const unmet = unmetAll(file.runOnRequirements, info) ?? unmetAll(test.runOnRequirements, info);
  if (unmet) return `runOnRequirements: ${unmet}`;
  if (test.skipReason) return 'skipReason given by the spec';
  const deviation = driverDeviation(file.folder, file.file, test.description);
  if (deviation) return deviation;
  const ops = operationsOf(test.operations);
  const failPoint = failPointReason(ops);
  if (failPoint) return failPoint;
  const missing = ops.find((op) => !isSupported(String(op.name)));
  if (missing) return `unsupported operation: ${String(missing.name)}`;
  const entity = unsupportedEntity(file.createEntities) ?? ops.map((op) => (op.name === 'createEntities' ? unsupportedEntity((op.arguments as Json).entities as Json[]) : undefined)).find(Boolean);
  if (entity) return entity;
  if ((test.expectEvents ?? []).some((e) => e.eventType === 'sdam')) return 'unsupported expectation: sdam events';
  if ((test as unknown as Json).expectLogMessages) return 'unsupported expectation: log messages';
  return undefined;
}
