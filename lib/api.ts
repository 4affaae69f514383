import express, { type Router } from 'express';
import type winston from 'winston';
import { configFromEnv, type RestConfig } from './config';
import { errorMiddleware } from './http/error-middleware';
import { resourceRouter, type UpdateMultipleRoute } from './http/resource-router';
import { createLoggers, type Loggers } from './log/logger';
import type { ResourceDeclaration } from './resource/declaration';
import { Registry } from './resource/registry';
import { ResourceService } from './service/resource-service';

export interface RestApiOptions {
  config?: Partial<RestConfig>;
  /** The application's winston logger; the library logs on child channels of it. */
  logger?: winston.Logger;
  /** Body size limit for the JSON parser the router installs (default 1mb). */
  bodyLimit?: string;
}

export interface RegisterOptions {
  /** Default: both `PATCH /batch` and `POST /update-multiple`. */
  updateMultipleRoutes?: UpdateMultipleRoute[];
}

export interface RestApi {
  register(declaration: ResourceDeclaration, options?: RegisterOptions): RestApi;
  /** An Express router with every registered resource under `/<name>`; mount it under your prefix. */
  router(): Router;
  readonly registry: Registry;
  readonly config: RestConfig;
  readonly log: Loggers;
  close(): Promise<void>;
}

/** Entry point: declare resources, then mount `api.router()` in an Express app. */
export function createRestApi(options: RestApiOptions = {}): RestApi {
  const config = configFromEnv(options.config);
  const log = createLoggers(options.logger);
  const registry = new Registry();
  const routeOptions = new Map<string, RegisterOptions>();
  let built: Router | null = null;

  const api: RestApi = {
    registry,
    config,
    log,
    register(declaration, registerOptions = {}) {
      registry.add(declaration);
      routeOptions.set(declaration.MODEL, registerOptions);
      return api;
    },
    router() {
      if (built) return built;
      registry.build();
      const router = express.Router();
      router.use(express.json({ limit: options.bodyLimit ?? '1mb' }));
      for (const entry of registry.entriesList()) {
        const service = new ResourceService(entry, registry, config, log);
        const chosen = routeOptions.get(entry.info.name)?.updateMultipleRoutes ?? ['batch', 'update-multiple'];
        router.use(`/${entry.declaration.name}`, resourceRouter(service, { updateMultipleRoutes: chosen }));
      }
      router.use(errorMiddleware(log));
      built = router;
      return router;
    },
    async close() {
      for (const driver of registry.drivers()) await driver.close?.();
    },
  };
  return api;
}
