// The console's log: one JSON object a line (pino), for a log collector. Access lines (one per
// request, with its request id, route, status, time and who asked) and security events (sign-in,
// refused sign-in and why, sign-out, forbidden acts, untrusted proxies, rate limits). Secrets are
// masked in every line as it is written: the registered secret values (client secret, the
// contexts' credentials, the metrics token) in any of their forms, and credential headers by name.
// A request's query string is never logged (a login token or an authorization code travel there).
import { pino, type Logger, type DestinationStream } from 'pino';
import { redactText } from '../../http/redact.js';

export type ConsoleLog = Logger;

export interface LogOptions {
  /** Where lines go: a stream (tests), else this process's stdout (fd 1) or stderr (fd 2). */
  destination?: DestinationStream;
  fd?: 1 | 2;
  level?: string;
}

export function consoleLog(options: LogOptions = {}): ConsoleLog {
  return pino({
    name: 'offsetctl-ui',
    level: options.level ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['headers.authorization', 'headers.cookie', 'headers["set-cookie"]', '*.password', '*.secret', '*.token'], censor: '***' },
    // The last word on secrets: whatever a message or an error's text carries is masked here.
    hooks: { streamWrite: (line: string) => redactText(line) },
  }, options.destination ?? pino.destination({ dest: options.fd ?? 1, sync: true }));
}
