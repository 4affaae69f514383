import type { Driver } from '../driver';
import { DeclarationError } from '../errors/declaration-error';
import type { Registry } from '../service/declarations/registry';
import { historyDriver } from './history-driver';
import { retainOf } from './retention';

/**
 * Puts the history driver in front of the drivers of resources that keep history (decision 83),
 * before the change feed wraps them. Refuses at start a declaration whose driver keeps no history
 * or whose `retain.versions` is not a positive integer. Answers the start-up work: each history
 * table or collection created (`api.ready()`), or null when no resource keeps history.
 */
export function enableHistory(registry: Registry): (() => Promise<void>) | null {
  const retain = new Map<string, number | null>();
  for (const entry of registry.entriesList()) {
    const declared = entry.declaration.history;
    if (!declared) continue;
    const who = entry.declaration.name;
    if (!entry.driver.history) throw new DeclarationError(who, 'history', `the ${entry.driver.kind} driver keeps no history.`);
    const versions = retainOf(declared);
    if (versions !== null && (!Number.isSafeInteger(versions) || versions < 1)) throw new DeclarationError(who, 'history', 'retain.versions must be a positive integer.');
    retain.set(entry.info.name, versions);
  }
  if (retain.size === 0) return null;
  const book = { retainOf: (model: string) => (retain.has(model) ? retain.get(model)! : undefined), catalog: () => registry };
  const wrapped = new Map<Driver, Driver>();
  const kept = registry.entriesList().filter((entry) => retain.has(entry.info.name));
  for (const entry of kept) {
    let driver = wrapped.get(entry.driver);
    if (!driver) wrapped.set(entry.driver, (driver = historyDriver(entry.driver, book)));
  }
  // every resource on a wrapped driver: a delete elsewhere may set a kept record's key to null
  for (const entry of registry.entriesList()) entry.driver = wrapped.get(entry.driver) ?? entry.driver;
  return async () => {
    for (const entry of kept) await entry.driver.history!.ensure(entry.info.name);
  };
}

