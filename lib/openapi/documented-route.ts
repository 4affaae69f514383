/**
 * A route as the API description reads it: the fields of the route table's entries
 * (lib/http/routes.ts) that say what the route is, without its handler. The document is built
 * from the same table the router is, handed in by the API; openapi/ imports nothing of http/.
 */
export interface DocumentedRoute {
  name: string;
  resource: string;
  model: string;
  action: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  access: 'read' | 'create' | 'update' | 'delete';
  answers: 'json' | 'stream';
  permissions?: string[];
  summary: string;
  params?: readonly string[];
}

/** The route table as the API description reads it. */
export interface DocumentedRoutes {
  all(): readonly DocumentedRoute[];
}
