import type { AuthUser, ParentScope, RequestContext } from '../declaration';

export type { AuthUser, ParentScope, RequestContext } from '../declaration';

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
  requestId: string | undefined;
  #signal: AbortSignal | null;
  readonly #signalOf: (() => AbortSignal) | undefined;

  constructor(init: Partial<RequestContext>, signalOf: (() => AbortSignal) | undefined) {
    this.user = init.user ?? null;
    this.roles = init.roles ?? this.user?.roles ?? [];
    this.parent = init.parent ?? null;
    this.route = init.route ?? null;
    this.touched = init.touched ?? new Set();
    this.locals = init.locals ?? {};
    this.requestId = init.requestId;
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
