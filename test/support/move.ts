// The move tests' setting: the sandbox's two Connect clusters (main and second, one broker), a
// state folder per test file, and a writer that keeps appending lines to a FileStreamSource's
// file while a move runs (the point of a move is that nothing is replayed or lost meanwhile).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliResult, type RunCliOptions } from './cli.js';
import { ConnectRest, tempDir } from './connect.js';
import { getSandbox, secondCluster } from './sandbox.js';

export interface TwoClusters {
  main: ConnectRest;
  second: ConnectRest;
  /** Every worker URL of each, comma-separated (what an operator gives --url / --to). */
  mainUrls: string;
  secondUrls: string;
  bootstrap: string;
}

export async function twoClusters(): Promise<TwoClusters> {
  const sandbox = await getSandbox();
  const second = await secondCluster();
  return {
    main: new ConnectRest(sandbox.connect[0] as string), second: new ConnectRest(second.connect[0] as string),
    mainUrls: sandbox.connect.join(','), secondUrls: second.connect.join(','), bootstrap: sandbox.bootstrap,
  };
}

/** `offsetctl <args>` with this test's own state folder and no config file of the machine's. */
export function moveCli(stateDir: string): (args: string[], options?: RunCliOptions) => Promise<CliResult> {
  return (args, options = {}) => runCli([...args, '--state-dir', stateDir], { ...options, env: { OFFSETCTL_CONFIG: join(stateDir, 'no-config.yaml'), ...options.env } });
}

export function moveStateDir(prefix: string): string {
  return tempDir(`offsetctl-${prefix}-`);
}

/** Appends `<prefix> <n>` every `everyMs` until stopped; `lines` is everything written. */
export class LineWriter {
  readonly lines: string[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly file: string, readonly prefix: string, everyMs = 100) {
    this.#timer = setInterval(() => this.write(1), everyMs);
  }

  write(count: number): void {
    let text = '';
    for (let i = 0; i < count; i++) {
      const line = `${this.prefix} ${this.lines.length + 1}`;
      this.lines.push(line);
      text += `${line}\n`;
    }
    appendFileSync(this.file, text);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** Each line once, in order: the lines that are missing, doubled or out of place. */
export function exactlyOnce(expected: readonly string[], actual: readonly string[]): { missing: string[]; doubled: string[]; inOrder: boolean } {
  const seen = new Map<string, number>();
  for (const l of actual) seen.set(l, (seen.get(l) ?? 0) + 1);
  return {
    missing: expected.filter((l) => !seen.has(l)),
    doubled: [...seen].filter(([, n]) => n > 1).map(([l]) => l),
    inOrder: actual.length === expected.length && actual.every((l, i) => l === expected[i]),
  };
}
