import { BSON, MongoClient, type ClientSession, type Collection, type Db, type MongoClientOptions } from 'mongodb';
import type { Json } from './load';

/** One observed event: its spec name (commandStartedEvent, connectionCheckOutStartedEvent ...) and the driver's object. */
export interface ObservedEvent {
  name: string;
  kind: 'command' | 'cmap';
  event: Record<string, unknown>;
}

export interface ClientEntity {
  client: MongoClient;
  events: ObservedEvent[];
}

type Entity =
  | { type: 'client'; value: ClientEntity }
  | { type: 'database'; value: Db }
  | { type: 'collection'; value: Collection }
  | { type: 'session'; value: ClientSession; lsid: unknown }
  | { type: 'value'; value: unknown };

/** Raised for what the runner deliberately does not implement; the suite counts these as skips. */
export class Unsupported extends Error {}

/** Commands whose monitoring events are redacted, hence ignored (command monitoring spec, Security). */
const SENSITIVE = new Set(['authenticate', 'saslStart', 'saslContinue', 'getnonce', 'createUser', 'updateUser', 'copydbgetnonce', 'copydbsaslstart', 'copydb', 'hello', 'isMaster', 'ismaster']);

const CMAP_EVENTS: Record<string, string> = {
  connectionPoolCreated: 'poolCreatedEvent',
  connectionPoolReady: 'poolReadyEvent',
  connectionPoolCleared: 'poolClearedEvent',
  connectionPoolClosed: 'poolClosedEvent',
  connectionCreated: 'connectionCreatedEvent',
  connectionReady: 'connectionReadyEvent',
  connectionClosed: 'connectionClosedEvent',
  connectionCheckOutStarted: 'connectionCheckOutStartedEvent',
  connectionCheckOutFailed: 'connectionCheckOutFailedEvent',
  connectionCheckedOut: 'connectionCheckedOutEvent',
  connectionCheckedIn: 'connectionCheckedInEvent',
};

const CLIENT_KEYS = new Set(['id', 'uriOptions', 'useMultipleMongoses', 'observeEvents', 'ignoreCommandMonitoringEvents', 'observeSensitiveCommands']);

/** The entity map of one test (unified test format, "Entity Map"). */
export class EntityMap {
  private readonly entities = new Map<string, Entity>();

  /** `clientOptions`: added to every client's options (driver-deviations.ts). */
  constructor(
    private readonly uri: string,
    private readonly clientOptions: Record<string, unknown> = {},
  ) {}

  private put(id: string, entity: Entity): void {
    if (this.entities.has(id)) throw new Error(`entity ${id} is already defined`);
    this.entities.set(id, entity);
  }

  private typed<T extends Entity['type']>(id: string, type: T): Extract<Entity, { type: T }> {
    const e = this.entities.get(id);
    if (!e) throw new Error(`entity ${id} is not defined`);
    if (e.type !== type) throw new Error(`entity ${id} is a ${e.type}, not a ${type}`);
    return e as Extract<Entity, { type: T }>;
  }

  client(id: string): ClientEntity {
    return this.typed(id, 'client').value;
  }
  database(id: string): Db {
    return this.typed(id, 'database').value;
  }
  collection(id: string): Collection {
    return this.typed(id, 'collection').value;
  }
  session(id: string): ClientSession {
    return this.typed(id, 'session').value;
  }
  sessionLsid(id: string): unknown {
    return this.typed(id, 'session').lsid;
  }
  typeOf(id: string): Entity['type'] | undefined {
    return this.entities.get(id)?.type;
  }
  /** A saved result (saveResultAsEntity), or any entity for $$matchesEntity. */
  get(id: string): unknown {
    const e = this.entities.get(id);
    if (!e) throw new Error(`entity ${id} is not defined`);
    return e.value;
  }
  save(id: string, value: unknown): void {
    this.put(id, { type: 'value', value });
  }

  async create(specs: Json[]): Promise<void> {
    for (const spec of specs) {
      const [type] = Object.keys(spec);
      const def = spec[type] as Json;
      const id = String(def.id);
      if (type === 'client') this.put(id, { type, value: await this.createClient(def) });
      else if (type === 'database') this.put(id, { type, value: this.client(String(def.client)).client.db(String(def.databaseName), (def.databaseOptions ?? {}) as Json) });
      else if (type === 'collection') this.put(id, { type, value: this.database(String(def.database)).collection(String(def.collectionName), (def.collectionOptions ?? {}) as Json) });
      else if (type === 'session') {
        const { snapshotTime, ...options } = (def.sessionOptions ?? {}) as Json;
        const session = this.client(String(def.client)).client.startSession(options);
        // sessionOptions.snapshotTime names a saved entity; this driver has no such option, so the
        // session gets the field it would otherwise learn from its first snapshot read
        if (snapshotTime !== undefined) Object.assign(session, { snapshotTime: this.get(String(snapshotTime)) });
        this.put(id, { type, value: session, lsid: session.id });
      } else throw new Unsupported(`entity type ${type}`);
    }
  }

  private async createClient(def: Json): Promise<ClientEntity> {
    for (const k of Object.keys(def)) if (!CLIENT_KEYS.has(k)) throw new Unsupported(`client option ${k}`);
    const observe = new Set(((def.observeEvents as string[]) ?? []).map(String));
    const ignored = new Set(((def.ignoreCommandMonitoringEvents as string[]) ?? []).map(String));
    const sensitiveToo = def.observeSensitiveCommands === true;
    const options = { ...((def.uriOptions ?? {}) as Json), monitorCommands: true, serverSelectionTimeoutMS: 10_000, ...this.clientOptions } as MongoClientOptions;
    const client = new MongoClient(this.uri, options);
    const entity: ClientEntity = { client, events: [] };
    const record = (name: string, kind: ObservedEvent['kind']) => (event: Record<string, unknown>) => {
      if (kind === 'command') {
        const command = String(event.commandName);
        if (ignored.has(command) || command === 'configureFailPoint') return;
        if (!sensitiveToo && SENSITIVE.has(command)) return;
      }
      if (!observe.has(name)) return;
      // a copy: the driver may mutate objects it sent later (a client's readConcern gains afterClusterTime)
      const copy = { ...event };
      for (const k of ['command', 'reply']) if (copy[k] && typeof copy[k] === 'object') copy[k] = BSON.deserialize(BSON.serialize(copy[k] as object));
      entity.events.push({ name, kind, event: copy });
    };
    client.on('commandStarted', record('commandStartedEvent', 'command') as never);
    client.on('commandSucceeded', record('commandSucceededEvent', 'command') as never);
    client.on('commandFailed', record('commandFailedEvent', 'command') as never);
    for (const [driverName, specName] of Object.entries(CMAP_EVENTS)) client.on(driverName as never, record(specName, 'cmap') as never);
    await client.connect();
    return entity;
  }

  /** End sessions and close clients (the test's teardown). */
  async close(): Promise<void> {
    for (const e of this.entities.values()) if (e.type === 'session') await e.value.endSession().catch(() => undefined);
    for (const e of this.entities.values()) if (e.type === 'client') await e.value.client.close().catch(() => undefined);
    this.entities.clear();
  }
}
