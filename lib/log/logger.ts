import winston from 'winston';

/**
 * The library's log channels. `app`: general messages (LOG_LEVEL, default info); `db`: every
 * database error in full (the client only sees the translated message); `query`: with
 * LOG_QUERY=true, one line per controller action with the compiled query and its duration
 * (to the query log file LOG_QUERY_FILE when one is set, rotated by size); `access`: one line per
 * request (method, path, status, duration, user).
 */
export interface Loggers {
  app: winston.Logger;
  db: winston.Logger;
  query: winston.Logger;
  access: winston.Logger;
  /** Closes what the loggers opened themselves (the query log file). */
  close(): Promise<void>;
}

/** Where the query channel writes: a file, rotated when it reaches maxSize bytes, maxFiles kept. */
export interface QueryLogOptions {
  queryLogFile?: string | null;
  queryLogMaxSize?: number;
  queryLogMaxFiles?: number;
}

export function createLoggers(base?: winston.Logger, options: QueryLogOptions = {}): Loggers {
  const app =
    base ??
    winston.createLogger({
      level: process.env.LOG_LEVEL && process.env.LOG_LEVEL !== 'silent' ? process.env.LOG_LEVEL : 'info',
      format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
      // LOG_LEVEL=silent turns logging off (the test suites use it; errors are asserted on instead).
      transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'], silent: process.env.LOG_LEVEL === 'silent' })],
    });
  const file = options.queryLogFile ? queryFileLogger(options.queryLogFile, options) : null;
  return {
    app,
    db: app.child({ channel: 'database' }),
    query: file ?? app.child({ channel: 'query' }),
    access: app.child({ channel: 'access' }),
    close: () => (file ? closeLogger(file) : Promise.resolve()),
  };
}

/**
 * The spec's query log file: one JSON line per query, winston's File transport rotating by size
 * (`<name>1.<ext>`, ... up to maxFiles files). Independent of LOG_LEVEL: it is only written when
 * LOG_QUERY is on.
 */
function queryFileLogger(filename: string, options: QueryLogOptions): winston.Logger {
  return winston.createLogger({
    level: 'info',
    defaultMeta: { channel: 'query' },
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [
      new winston.transports.File({
        filename,
        maxsize: options.queryLogMaxSize ?? 10 * 1024 * 1024,
        maxFiles: options.queryLogMaxFiles ?? 5,
        tailable: true,
      }),
    ],
  });
}

/** Ends a logger once its lines are written (winston's 'finish' follows the transports' flush). */
function closeLogger(logger: winston.Logger): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve();
    logger.on('finish', () => setImmediate(done));
    logger.end();
    setTimeout(done, 2000).unref();
  });
}
