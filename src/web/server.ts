// Starting the console: parse --listen, refuse a non-loopback address without TLS, serve the
// Hono app on node:http (or node:https), and hand back the login URL with its one-time token (or,
// for a signed-in service, the URL to open).
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { metricsOnly } from './observe/index.js';
import { OpsError } from './ops-bridge.js';
import { createConsole, type ConsoleDeps } from './app.js';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface StartOptions extends ConsoleDeps {
  listen: ListenAddress;
  tls?: { cert: string; key: string };
  /**
   * On a team store, how often to look for runs another console left (its replica died and its
   * lease passed) and take them over (default 10 s). At start it looks once on any store.
   */
  recoveryIntervalMs?: number;
  /** On close, how long running jobs may go on before they are cancelled (default 15 s). */
  drainMs?: number;
}

export interface RunningConsole {
  /** Base URL, e.g. http://127.0.0.1:7070 */
  url: string;
  /** Open this once: it carries the one-time login token (a service: the URL people open). */
  loginUrl: string;
  /** `metrics.listen`: where /metrics is served on its own (loopback) address. */
  metricsUrl?: string;
  /** Stops accepting requests, cancels running operations (each puts its connector back) and waits for them to end. */
  close(): Promise<void>;
}

/** `127.0.0.1:7070`, `[::1]:7070`, `localhost:0` → host and port; refusals name --listen. */
export function parseListen(value: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new OpsError('E_USAGE', `--listen: expected host:port such as 127.0.0.1:7070 (got ${JSON.stringify(value)})`, { field: 'listen' });
  return { host: (m[1] ?? m[2])!, port };
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

export async function startConsole(options: StartOptions): Promise<RunningConsole> {
  const { listen, tls } = options;
  if (!isLoopback(listen.host) && !tls) {
    throw new OpsError('E_USAGE', `--listen ${listen.host}: a non-loopback address needs --tls-cert <pem> and --tls-key <pem> (the console changes offsets; it is served over plain HTTP only on 127.0.0.1/::1)`, { field: 'listen' });
  }
  let serverOptions: { cert: Buffer; key: Buffer } | undefined;
  if (tls) {
    try {
      serverOptions = { cert: readFileSync(tls.cert), key: readFileSync(tls.key) };
    } catch (err) {
      throw new OpsError('E_USAGE', `--tls-cert/--tls-key: cannot read ${(err as { path?: string }).path ?? 'the PEM files'} (${(err as { code?: string }).code ?? (err as Error).message})`, { field: 'tls-cert' });
    }
  }
  // The OpenID redirect URI is built on the URL browsers open: the configured public URL, else
  // this server's own address once it listens.
  let base = '';
  const publicUrl = options.service?.publicUrl ? options.service.publicUrl.origin : undefined;
  const console = createConsole({ ...options, secure: Boolean(tls), publicUrl: () => publicUrl ?? base });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({
      fetch: console.app.fetch, hostname: listen.host, port: listen.port,
      ...(serverOptions ? { createServer: createHttpsServer, serverOptions } : {}),
    }, () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE'
      ? new OpsError('E_USAGE', `--listen ${listen.host}:${listen.port}: the port is in use; pick another (or :0 for a free one)`, { field: 'listen' })
      : err));
  });
  const metricsServer = options.service?.metrics?.listen ? await serveMetrics(parseListen(options.service.metrics.listen), console) : undefined;
  const address = server.address() as AddressInfo;
  // On a wildcard address, print the machine's name: that is what a browser elsewhere opens.
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? hostname() : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${tls ? 'https' : 'http'}://${host}:${address.port}`;
  base = url;
  // Runs a console left (this one killed, or on a team store another replica gone past its lease).
  const shared = /^postgres(?:ql)?:/i.test(options.store.location);
  void console.recovery.start(shared ? options.recoveryIntervalMs ?? 10_000 : undefined);
  return {
    url,
    loginUrl: console.sessions.loginToken ? `${url}/login?token=${console.sessions.loginToken}` : `${publicUrl ?? url}/`,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    close: async () => {
      await metricsServer?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      console.recovery.stop();
      // The drain: no new request (so no new job) is taken; running jobs get `drainMs` to end,
      // then are cancelled (each puts its connector back: "cancelled: the console shut down").
      const drained = await Promise.race([
        console.jobs.settle().then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), options.drainMs ?? 15_000).unref()),
      ]);
      if (!drained) {
        console.log.warn({ event: 'drain-cancel', jobs: console.jobs.running }, 'jobs still running at the drain bound are cancelled');
        console.jobs.cancelAll('the console shut down');
      }
      await console.jobs.settle();
    },
  };
}

/** /metrics alone on its own loopback address (`metrics.listen`): only this machine reaches it. */
async function serveMetrics(listen: ListenAddress, console: ReturnType<typeof createConsole>): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Hono();
  metricsOnly(app, console.metrics);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: listen.host, port: listen.port }, () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE'
      ? new OpsError('E_USAGE', `metrics.listen ${listen.host}:${listen.port}: the port is in use; pick another (or :0 for a free one)`,
        { field: 'metrics.listen' })
      : err));
  });
  const a = server.address() as AddressInfo;
  return {
    url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}/metrics`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    }),
  };
}
