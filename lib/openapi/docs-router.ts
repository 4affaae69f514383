import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import { ApiError, UnauthenticatedError } from '../errors';

/** `api.docsRouter()` options beside the document's: who may read the description (decision 68). */
export interface DocsOptions {
  /**
   * false (default): `/openapi.json` and `/docs` are public (they describe routes and fields, no
   * data). true: only callers the API's authentication accepts (401 otherwise).
   */
  authenticate?: boolean;
}

/** Answers whether the request's caller is accepted by the API's authentication. */
export type DocsAuthenticate = (req: Request, res: Response) => Promise<boolean>;

/** The page's message when swagger-ui-dist is missing (a 501 not_implemented in the error shape). */
export const SWAGGER_UI_MISSING = 'The API page needs the swagger-ui-dist package on the server: npm install swagger-ui-dist (the description is at openapi.json meanwhile).';

/**
 * `/openapi.json` and a browsable page at `/docs`, rendered by swagger-ui-dist served from this
 * process (no CDN: it works offline). swagger-ui-dist is loaded on first use; without it the page
 * answers 501 (`not_implemented`) saying what to install. Public unless `authenticate` is given:
 * then every route of this router first asks it, and a caller it refuses gets a 401.
 */
export function docsRouter(document: () => Record<string, unknown>, options: { title?: string; authenticate?: DocsAuthenticate; challenge?: (req: Request) => string } = {}): Router {
  const router = express.Router();
  const authenticate = options.authenticate;
  // the description and the page are gated; swagger-ui's own files and init.js describe nothing
  const gate: RequestHandler = (req, res, next) => {
    if (!authenticate) return next();
    authenticate(req, res).then((accepted) => next(accepted ? undefined : new UnauthenticatedError()), next);
  };
  router.get('/openapi.json', gate, (_req, res) => {
    res.json(document());
  });
  let assets: string | null | undefined;
  const assetDir = (): string | null => {
    if (assets !== undefined) return assets;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      assets = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
    } catch {
      assets = null;
    }
    return assets;
  };
  router.use('/docs/assets', (req, res, next) => {
    const dir = assetDir();
    if (!dir) return next();
    express.static(dir, { index: false })(req, res, next);
  });
  router.get('/docs', gate, (req, res) => {
    if (!assetDir()) throw new ApiError('not_implemented', SWAGGER_UI_MISSING);
    const base = req.baseUrl;
    const title = (options.title ?? 'API').replace(/[<>&"]/g, '');
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${base}/docs/init.js"></script>
</body></html>`);
  });
  router.get('/docs/init.js', (req, res) => {
    res.type('application/javascript').send(`window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${req.baseUrl}/openapi.json`)}, dom_id: '#swagger-ui', deepLinking: true });`);
  });
  // this router's own errors (401, 501) in the API's error shape, wherever the application mounts it
  const errors: ErrorRequestHandler = (err, req, res, next) => {
    if (!(err instanceof ApiError) || res.headersSent) return next(err);
    if (err.status === 401 && options.challenge) res.set('WWW-Authenticate', options.challenge(req));
    res.status(err.status).json({ message: err.message, type: err.type, status: err.status, ...err.body() });
  };
  router.use(errors);
  return router;
}
