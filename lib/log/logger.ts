import winston from 'winston';

/**
 * The library's log channels. `app`: general messages (LOG_LEVEL, default info); `db`: every
 * database error in full (the client only sees the translated message); `query`: with
 * LOG_QUERY=true, one line per controller action with the compiled query and its duration;
 * `access`: one line per request (method, path, status, duration, user).
 */
export interface Loggers {
  app: winston.Logger;
  db: winston.Logger;
  query: winston.Logger;
  access: winston.Logger;
}

export function createLoggers(base?: winston.Logger): Loggers {
  const app =
    base ??
    winston.createLogger({
      level: process.env.LOG_LEVEL && process.env.LOG_LEVEL !== 'silent' ? process.env.LOG_LEVEL : 'info',
      format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
      // LOG_LEVEL=silent turns logging off (the test suites use it; errors are asserted on instead).
      transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'], silent: process.env.LOG_LEVEL === 'silent' })],
    });
  return {
    app,
    db: app.child({ channel: 'database' }),
    query: app.child({ channel: 'query' }),
    access: app.child({ channel: 'access' }),
  };
}
