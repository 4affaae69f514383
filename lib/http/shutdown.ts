import type { Server } from 'node:http';

export interface StopServerOptions {
  /** How long in-flight requests may take to finish (default 10 s); past it their connections are closed. */
  timeoutMs?: number;
}

/**
 * Graceful stop of an HTTP server: it stops accepting at once, idle keep-alive connections are
 * closed (again as each in-flight request ends), in-flight requests get `timeoutMs` to finish,
 * and whatever is still open then is closed. Resolves with `forced: true` when some had to be cut.
 */
export function stopServer(server: Server, options: StopServerOptions = {}): Promise<{ forced: boolean }> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    if (!server.listening) {
      server.closeAllConnections?.();
      resolve({ forced: false });
      return;
    }
    let forced = false;
    const sweep = setInterval(() => server.closeIdleConnections?.(), 50);
    const cut = setTimeout(() => {
      forced = true;
      server.closeAllConnections?.();
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve({ forced });
    });
    server.closeIdleConnections?.();
  });
}
