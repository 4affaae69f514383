import { join } from 'node:path';
import type { Driver } from './types';

/**
 * How a driver joins the library: it recognises its native models and makes one Driver per
 * connection (mongoose Connection, Sequelize instance) so models on one connection share
 * transactions. Drivers register themselves (`generic-resource-rest/mongo`, `/sql`), or the
 * built-in ones are loaded on first use of a model of theirs, so an app that uses only mongoose
 * never loads Sequelize or pg, and the reverse.
 */
export interface DriverFactory {
  readonly kind: string;
  /** True for a native model of this driver (duck-typed: no instanceof across package copies). */
  accepts(model: unknown): boolean;
  /** The connection a model belongs to; one Driver is made per connection. */
  connectionOf(model: unknown): unknown;
  create(connection: unknown): Driver;
}

const factories: DriverFactory[] = [];

export function registerDriver(factory: DriverFactory): void {
  if (!factories.some((f) => f.kind === factory.kind)) factories.push(factory);
}

/** Duck-typed checks of the two built-in model kinds, so the right driver module can be loaded lazily. */
const BUILT_IN: Array<{ kind: string; module: string; looksLike(model: unknown): boolean }> = [
  {
    kind: 'mongo',
    module: 'mongo',
    looksLike: (model) => typeof model === 'function' && typeof (model as { modelName?: unknown }).modelName === 'string' && !!(model as { schema?: unknown }).schema,
  },
  {
    kind: 'sql',
    module: 'sql',
    looksLike: (model) => typeof model === 'function' && typeof (model as { getAttributes?: unknown }).getAttributes === 'function',
  },
];

function factoryFor(model: unknown): DriverFactory | undefined {
  const registered = factories.find((f) => f.accepts(model));
  if (registered) return registered;
  const builtIn = BUILT_IN.find((b) => b.looksLike(model));
  if (!builtIn) return undefined;
  // lib never imports drivers/ statically: the module is resolved at run time, next to lib/ in src and dist alike
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(join(__dirname, '..', '..', 'drivers', builtIn.module)) as { driverFactory: DriverFactory };
  registerDriver(loaded.driverFactory);
  return loaded.driverFactory.accepts(model) ? loaded.driverFactory : undefined;
}

/** Picks (and memoizes per connection) the driver of a native model. */
export class DriverPool {
  private readonly drivers = new Map<unknown, Driver>();

  forModel(model: unknown, MODEL: string): Driver {
    const factory = factoryFor(model);
    if (!factory) throw new Error(`Resource ${MODEL}: the model is neither a mongoose model nor a Sequelize model; pass \`driver\`.`);
    const connection = factory.connectionOf(model);
    let driver = this.drivers.get(connection);
    if (!driver) {
      driver = factory.create(connection);
      this.drivers.set(connection, driver);
    }
    return driver;
  }
}

/** A factory for a driver whose models name their connection in one property (`db`, `sequelize`). */
export function defineDriverFactory<C>(kind: string, accepts: (model: unknown) => boolean, connectionProperty: string, create: (connection: C) => Driver): DriverFactory {
  return {
    kind,
    accepts,
    connectionOf: (model) => (model as Record<string, unknown>)[connectionProperty],
    create: (connection) => create(connection as C),
  };
}
