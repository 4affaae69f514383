import type { Id } from '../driver';

/** The authenticated caller, as the application's `authenticate` function returns it. */
export interface AuthUser {
  id: Id;
  roles: string[];
  is_superuser?: boolean;
  [key: string]: unknown;
}

/** A relation route's parent: the records listed or written belong to it. */
export interface ParentScope {
  model: string;
  id: Id;
  relation: string;
}

/**
 * What every service operation receives about the request it serves. Built by the router for
 * each request; the application's own routes can build one with `createContext`.
 */
export interface RequestContext {
  /** null: anonymous. */
  user: AuthUser | null;
  /** The user's roles (empty when anonymous). */
  roles: string[];
  /** Set on relation routes, explicit (`/products/1/tags`) or implicit (`/me/reviews`). */
  parent: ParentScope | null;
  /** Aborted when the client goes away or the request deadline passes. */
  signal: AbortSignal;
  /** The generated route's name (`products.index`), when the request came through one. */
  route: string | null;
  /** Models this request wrote, filled by the service; cache versions are bumped after commit. */
  touched: Set<string>;
  /** Free room for hooks and application middleware. */
  locals: Record<string, unknown>;
}

/**
 * `signalOf`: makes the signal when something first asks for it (the router's, tied to the
 * response); without it and without `init.signal`, a signal of its own that nothing aborts.
 */
export function createContext(init: Partial<RequestContext> = {}, signalOf?: () => AbortSignal): RequestContext {
  return new Context(init, signalOf);
}

/** A class rather than an object literal with accessors: no getter and setter closures per request. */
class Context implements RequestContext {
  user: AuthUser | null;
  roles: string[];
  parent: ParentScope | null;
  route: string | null;
  touched: Set<string>;
  locals: Record<string, unknown>;
  #signal: AbortSignal | null;
  readonly #signalOf: (() => AbortSignal) | undefined;

  constructor(init: Partial<RequestContext>, signalOf: (() => AbortSignal) | undefined) {
    this.user = init.user ?? null;
    this.roles = init.roles ?? this.user?.roles ?? [];
    this.parent = init.parent ?? null;
    this.route = init.route ?? null;
    this.touched = init.touched ?? new Set();
    this.locals = init.locals ?? {};
    this.#signal = init.signal ?? null;
    this.#signalOf = signalOf;
  }

  /** Made on first use: only streamed exports read it, so a JSON request never pays for it. */
  get signal(): AbortSignal {
    this.#signal ??= this.#signalOf ? this.#signalOf() : new AbortController().signal;
    return this.#signal;
  }

  set signal(value: AbortSignal) {
    this.#signal = value;
  }
}
