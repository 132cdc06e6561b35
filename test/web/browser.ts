// The web console for browser tests: `offsetctl ui` started as a user starts it (on a free
// port, with its own state folder), and Debian's Chromium driven by playwright-core with a
// fresh profile. Chromium must be installed (CI: `apt-get install -y chromium`); a missing
// browser fails the test rather than skipping it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { cliPath, repoRoot } from '../support/repo.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots land here (gitignored): test-output/ui/. */
export const screenshotDir = join(repoRoot, 'test-output', 'ui');

export interface RunningUi {
  base: string;
  loginUrl: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** `env` is added to this process's environment (e.g. OFFSETCTL_CONFIG for a test's contexts). */
export async function startUi(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningUi> {
  const child = spawn(process.execPath, [cliPath, 'ui', '--listen', '127.0.0.1:0', ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const loginUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`offsetctl ui printed no login URL within 20 s: ${out}`)), 20_000);
    const check = (): void => {
      const m = /(https?:\/\/\S+\/login\?token=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`offsetctl ui exited (${code}) before printing its URL: ${out}`));
    });
  });
  return {
    base: loginUrl.slice(0, loginUrl.indexOf('/login')),
    loginUrl,
    child,
    output: () => out,
    stop: () => new Promise<void>((resolve) => {
      // A console a test killed (SIGKILL) has no exit code but a signal: it is gone already.
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * One Chromium for a test file that needs several people at once: each `newContext()` is a
 * separate browser profile (its own cookies). The console's test certificate is self-signed.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's Chromium (apt-get update && apt-get install -y chromium)`);
  }
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** `offsetctl ui --config <file>` (a signed-in service): resolves once it prints where to sign in. */
export async function startService(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningUi> {
  const child = spawn(process.execPath, [cliPath, 'ui', ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`offsetctl ui printed no sign-in URL within 30 s: ${out}`)), 30_000);
    child.stdout!.on('data', () => {
      const m = /Sign in at (https?:\/\/\S+?)\/? \(/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`offsetctl ui exited (${code}) before it served: ${out}`));
    });
  });
  return {
    base, loginUrl: `${base}/`, child, output: () => out,
    stop: () => new Promise<void>((resolve) => {
      // A console a test killed (SIGKILL) has no exit code but a signal: it is gone already.
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** Chromium with a fresh --user-data-dir, 1280 px wide. */
export async function launchBrowser(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's Chromium (apt-get update && apt-get install -y chromium)`);
  }
  mkdirSync(screenshotDir, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'offsetctl-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ARGS,
  });
}
