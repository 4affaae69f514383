import { NotFoundError } from '../errors';
import type { RequestContext } from '../service/request-context';
import type { ResourceService } from '../service/resource-service';
import { markReverting } from './revert-mark';
import { retainOf } from './retention';

/**
 * `POST /{resource}/{id}/history/{version}/revert` (decision 83): every field that version's entry
 * changed, set back to its value after that version, as an update by the caller (update
 * permission, write policy, If-Match, 67's no-op), its entry saying `reverted`. Fields the model no
 * longer has, the soft-delete field and the version field are left out.
 */
export async function revertTo(service: ResourceService, rawId: string, rawVersion: string, ctx: RequestContext, ifMatch: string | undefined): Promise<unknown> {
  const store = service.database.history;
  const id = service.database.parseId(service.name, rawId);
  const version = /^\d{1,9}$/.test(rawVersion) ? Number(rawVersion) : null;
  const missing = () => new NotFoundError(`No version ${rawVersion} in the history of ${service.entry.declaration.name} ${rawId}.`);
  if (!store || id === null || version === null) throw missing();
  const entry = await store.entry(service.name, id, version, retainOf(service.entry.declaration.history));
  if (!entry) throw missing();
  const info = service.entry.info;
  const body: Record<string, unknown> = {};
  for (const [field, [, after]] of Object.entries(entry.changes)) {
    if (field in info.fields && field !== info.softDelete && field !== info.versionField) body[field] = after;
  }
  markReverting(ctx);
  return service.owned('update', await service.update(rawId, body, ctx, { ifMatch }));
}
