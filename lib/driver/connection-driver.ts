import type { Catalog } from '../resource/model-info';

/**
 * What both drivers share around their native connection (a mongoose Connection, a Sequelize
 * instance): the connection is the first described model's unless one was given, a driver only
 * accepts models of its connection, and the catalog is bound once every model is described.
 */
export abstract class ConnectionDriver<C> {
  private boundCatalog: Catalog | null = null;

  constructor(private connection: C | undefined) {}

  /** True for a native model of this driver's kind (duck-typed). */
  protected abstract isNativeModel(model: unknown): boolean;

  /** The connection a native model belongs to. */
  protected abstract connectionOf(model: unknown): C;

  accepts(model: unknown): boolean {
    if (!this.isNativeModel(model)) return false;
    return this.connection === undefined || this.connectionOf(model) === this.connection;
  }

  bind(catalog: Catalog): void {
    this.boundCatalog = catalog;
  }

  /** Takes the connection of the first model described when none was given. */
  protected adopt(model: unknown): void {
    this.connection ??= this.connectionOf(model);
  }

  protected native(): C {
    if (this.connection === undefined) throw new Error(`The ${this.constructor.name} has no connection yet (no model described).`);
    return this.connection;
  }

  /** The connection, or undefined before the first model is described. */
  protected connectionOrUndefined(): C | undefined {
    return this.connection;
  }

  protected requireCatalog(): Catalog {
    if (!this.boundCatalog) throw new Error(`The ${this.constructor.name} is not bound to a catalog yet.`);
    return this.boundCatalog;
  }
}
