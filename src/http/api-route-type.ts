/** One row of the route table (`api-routes.ts`): express path (`:param` form), method, and its OpenAPI operation object. */
export interface ApiRoute {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly operation: Readonly<Record<string, unknown>>;
}
