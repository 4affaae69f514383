import type { Request, Response } from 'express';
import type { RequestParams } from '../query';
import type { PlannedRead } from '../service/reads/planned-read';
import type { RequestContext } from '../service/request-context';

export type { PlannedRead } from '../service/reads/planned-read';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a route does to records: permission derivation, cache rules and the API description read it. */
export type RouteAccess = 'read' | 'create' | 'update' | 'delete';

export interface RouteInput {
  req: Request;
  res: Response;
  ctx: RequestContext;
  /** Query string and JSON body merged (decision 1). */
  params: RequestParams;
  /**
   * Present when a route with a `streamedBody` holds an Idempotency-Key: the handler reports the
   * digest of the body's bytes once it read them all, and the key's answer is stored under it.
   */
  bodyDigest?: (digest: string) => void;
}

/**
 * A body the handler reads as a stream (an import's file, decision 82), so no parsed JSON stands
 * for it in an Idempotency-Key's fingerprint (decision 80): the digest of its bytes does. The first
 * request reports it (`RouteInput.bodyDigest`); a repeat's body is read to its end by `digest`.
 */
export interface StreamedBody {
  digest(req: Request): Promise<string>;
}

/**
 * A JSON answer with a status other than 200 (201 created, 207 partial success), headers, or a
 * body already serialized (`json`, a cached entry); status 304 answers without a body.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    readonly json?: string,
  ) {}
}

/** Runs a planned read, possibly from a cache; the default just runs it. */
export type ReadGate = (input: RouteInput, read: PlannedRead, run: () => Promise<unknown>) => Promise<unknown>;

/** The read gate with the read cache off: the read runs as it is (kept in http so a read never leaves it to run). */
export const directRead: ReadGate = (_input, _read, run) => run();

/**
 * One generated route. The router, the permission middleware and the API description are all
 * built from the table of these, so they can never disagree.
 */
export interface RouteDefinition {
  /** Stable name: `products.index`, `products.show`, `products.tags.attach`, ... */
  name: string;
  /** The resource's route segment (`products`). */
  resource: string;
  /** The resource's MODEL. */
  model: string;
  /** The action part of the name (`index`, `store`, `attach`, ...). */
  action: string;
  method: HttpMethod;
  /** Express path relative to where the API router is mounted: `/products/:id`. */
  path: string;
  access: RouteAccess;
  /** json: the handler's result is the body (a Reply sets the status); stream: the handler writes the response. */
  answers: 'json' | 'stream';
  /**
   * The permissions the route's name stands for when the name alone cannot say (relation routes:
   * a right on the related resource, and on the parent); all are required. Default: the name convention.
   */
  permissions?: string[];
  /** A JSON route that may run for minutes (an import): no request deadline (REST_REQUEST_TIMEOUT_MS). */
  longRunning?: boolean;
  /** The body is a file the handler streams (an import): what an Idempotency-Key compares (decision 80). */
  streamedBody?: StreamedBody;
  /** One line for the API description. */
  summary: string;
  /** The query parameters the route accepts, when its action is not in lib/query/route-params.ts (decision 64). */
  params?: readonly string[];
  /**
   * Checks a write body's keys before the handler runs (decisions 50, 77): throws a 400 or a 422
   * `unknown_field`; pure, no database call. Absent: the body is not checked (reads, single deletes).
   */
  checkBody?: (body: unknown, params: RequestParams) => void;
  handler(input: RouteInput): Promise<unknown>;
}

/** The table of every generated route, in matching order (fixed segments before `/:id`). */
export class RouteTable {
  private readonly routes: RouteDefinition[] = [];

  add(...routes: RouteDefinition[]): void {
    for (const route of routes) {
      if (this.routes.some((r) => r.name === route.name)) {
        throw new Error(`Two routes are named "${route.name}": give one resource another \`name\`, or pick one update-multiple route.`);
      }
      if (this.routes.some((r) => r.method === route.method && r.path === route.path)) {
        throw new Error(`Two routes answer ${route.method.toUpperCase()} ${route.path} (${route.name}).`);
      }
      this.routes.push(route);
    }
  }

  all(): readonly RouteDefinition[] {
    return this.routes;
  }

  byName(name: string): RouteDefinition | undefined {
    return this.routes.find((r) => r.name === name);
  }
}
