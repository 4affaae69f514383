import express, { type Request, type Response, type Router } from 'express';
import { mergeParams } from '../query';
import type { ResourceService } from '../service/resource-service';
import { serialize } from './serialize';

export type UpdateMultipleRoute = 'batch' | 'update-multiple';

export interface ResourceRouteOptions {
  /** Which updateMultiple registrations to offer (spec: PATCH /batch and POST /update-multiple). */
  updateMultipleRoutes: UpdateMultipleRoute[];
}

type Action = (req: Request) => Promise<unknown>;

/** Controller glue: run the action, answer 200 with the serialized result. Errors go to next(). */
function handle(action: Action) {
  return async (req: Request, res: Response): Promise<void> => {
    const result = await action(req);
    res.status(200).json(serialize(result));
  };
}

const params = (req: Request) => mergeParams(req.query as Record<string, unknown>, req.body);

/**
 * The resource routes of one resource, relative to its collection path. Fixed segments come
 * before `/:id` so `first`, `batch` and `validate` are never taken for ids.
 */
export function resourceRouter(service: ResourceService, options: ResourceRouteOptions): Router {
  const router = express.Router();
  router.get('/', handle((req) => service.list(params(req))));
  router.get('/first', handle((req) => service.first(params(req))));
  router.post('/validate', handle((req) => service.validate(req.body)));
  if (options.updateMultipleRoutes.includes('batch')) router.patch('/batch', handle((req) => service.updateMultiple(req.body)));
  if (options.updateMultipleRoutes.includes('update-multiple')) {
    router.post('/update-multiple', handle((req) => service.updateMultiple(req.body)));
  }
  router.delete('/batch', handle((req) => service.deleteById(req.body)));
  router.get('/:id', handle((req) => service.show(String(req.params.id), params(req))));
  router.post('/', handle((req) => service.store(req.body)));
  router.put('/:id', handle((req) => service.update(String(req.params.id), req.body)));
  router.patch('/:id', handle((req) => service.update(String(req.params.id), req.body)));
  router.delete('/:id', handle((req) => service.destroy(String(req.params.id))));
  return router;
}
