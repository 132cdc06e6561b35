// `offsetctl sandbox up|status|down|logs|demo`: a local Kafka broker and Connect workers.
import { Option, type Command } from 'commander';

interface DirOption {
  dir?: string;
}

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw Object.assign(new Error(`${name} must be a positive whole number, got "${value}"`), { code: 'E_USAGE' });
    return n;
  };
}

/** `--output yaml` is refused by name, not silently shown as text. */
function outputOption(): Option {
  return new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');
}

export function register(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('a local Kafka broker and Kafka Connect workers (jars from Maven Central) for tests and demos');

  sandbox
    .command('up')
    .description('start one broker and N distributed Connect workers on 127.0.0.1 (reuses a running sandbox)')
    .option('--workers <n>', 'number of Connect workers', positiveInt('--workers'), 2)
    .option('--dir <dir>', 'sandbox folder (default $OFFSETCTL_SANDBOX_DIR or ~/.cache/offsetctl/sandbox)')
    .option('--broker-port <port>', 'fixed broker port instead of a free one', positiveInt('--broker-port'))
    .option('--connect-port <port>', 'fixed REST port of the first worker (the next workers use the following ports)', positiveInt('--connect-port'))
    .option('--kafka-version <version>', 'Kafka release to run, 3.6.0 or newer (default: the newest, 4.4.0); each version\'s jars are downloaded once')
    .addOption(outputOption())
    .action(async (opts: DirOption & { workers: number; brokerPort?: number; connectPort?: number; output: string; kafkaVersion?: string }) => {
      const { sandboxUp } = await import('../../sandbox/index.js');
      const result = await sandboxUp({
        workers: opts.workers,
        ...(opts.kafkaVersion ? { kafkaVersion: opts.kafkaVersion } : {}),
        progress,
        ...(opts.dir ? { dir: opts.dir } : {}),
        ...(opts.brokerPort ? { brokerPort: opts.brokerPort } : {}),
        ...(opts.connectPort ? { connectPort: opts.connectPort } : {}),
      });
      if (opts.output === 'json') {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      const verb = result.reused ? 'already running' : `up in ${(result.durationMs / 1000).toFixed(1)} s`;
      process.stdout.write(`sandbox ${verb} (Kafka ${result.kafkaVersion ?? '?'}, ${result.dir})\n` +
        `  bootstrap  ${result.bootstrap}\n` +
        result.connect.map((url, i) => `  worker-${i + 1}   ${url}\n`).join('') +
        'stop it with `offsetctl sandbox down`\n');
    });

  sandbox
    .command('status')
    .description('is the sandbox running, and where')
    .option('--dir <dir>', 'sandbox folder')
    .addOption(outputOption())
    .action(async (opts: DirOption & { output: string }) => {
      const { sandboxStatus } = await import('../../sandbox/index.js');
      const status = await sandboxStatus(opts.dir ? { dir: opts.dir } : {});
      if (opts.output === 'json') {
        process.stdout.write(`${JSON.stringify({ running: status.running, connect: status.connect, bootstrap: status.bootstrap, dir: status.dir, kafkaVersion: status.kafkaVersion ?? null })}\n`);
        return;
      }
      if (status.processes.length === 0) {
        process.stdout.write(`sandbox not running (${status.dir}); start it with \`offsetctl sandbox up\`\n`);
        return;
      }
      process.stdout.write(`sandbox ${status.running ? 'running' : 'NOT fully running'} (Kafka ${status.kafkaVersion ?? '?'}, ${status.dir})\n`);
      for (const p of status.processes) {
        const health = p.health === undefined ? '' : `  /health ${p.health || 'no answer'}`;
        process.stdout.write(`  ${p.role.padEnd(9)} pid ${p.pid} ${p.alive ? 'alive' : 'GONE '}${p.url ? `  ${p.url}` : ''}${health}\n`);
      }
      if (!status.running) process.stdout.write('run `offsetctl sandbox up` to restart it, `offsetctl sandbox logs` to see why\n');
    });

  sandbox
    .command('down')
    .description('stop the processes the sandbox started and wait until their ports are closed')
    .option('--dir <dir>', 'sandbox folder')
    .action(async (opts: DirOption) => {
      const { sandboxDown } = await import('../../sandbox/index.js');
      const result = await sandboxDown({ progress, ...(opts.dir ? { dir: opts.dir } : {}) });
      if (result.stopped.length === 0) process.stdout.write(`sandbox not running (${result.dir})\n`);
      else process.stdout.write(`sandbox stopped in ${(result.durationMs / 1000).toFixed(1)} s (${result.stopped.join(', ')}${result.killed.length ? `; killed after the grace period: ${result.killed.join(', ')}` : ''})\n`);
    });

  sandbox
    .command('logs')
    .description('show the end of the broker and worker logs')
    .argument('[process]', 'broker, worker-1, worker-2, ... (default: all)')
    .option('--dir <dir>', 'sandbox folder')
    .option('-n, --lines <n>', 'lines per log', positiveInt('--lines'), 50)
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .action(async (role: string | undefined, opts: DirOption & { lines: number; follow?: boolean }) => {
      const { sandboxLogs } = await import('../../sandbox/index.js');
      await sandboxLogs({ lines: opts.lines, follow: opts.follow === true, ...(role ? { role } : {}), ...(opts.dir ? { dir: opts.dir } : {}) });
    });

  sandbox
    .command('demo')
    .description('start the sandbox, pipe a file through FileStreamSource -> topic -> FileStreamSink, rewind the source and show the replay')
    .option('--dir <dir>', 'sandbox folder')
    .action(async (opts: DirOption) => {
      const { runSandboxDemo } = await import('../../sandbox/demo.js');
      await runSandboxDemo({ write: (text) => process.stdout.write(text), progress, ...(opts.dir ? { dir: opts.dir } : {}) });
    });
}
