import express, { type Router } from 'express';

/**
 * `/openapi.json` and a browsable page at `/docs`, rendered by swagger-ui-dist served from this
 * process (no CDN: it works offline). swagger-ui-dist is loaded on first use; without it the page
 * answers 501 saying what to install.
 */
export function docsRouter(document: () => Record<string, unknown>, options: { title?: string } = {}): Router {
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
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
  router.get('/docs', (req, res) => {
    if (!assetDir()) {
      res.status(501).json({ message: 'The API page needs swagger-ui-dist: npm install swagger-ui-dist', type: 'internal_error', status: 501 });
      return;
    }
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
  return router;
}
