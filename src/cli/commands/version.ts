// `offsetctl version [-o json]`: what is running — offsetctl, Node, the SQLite driver, and the
// Kafka version the sandbox runs by default (src/sandbox/kafka-versions.ts, through the sandbox's door).
import { Option, type Command } from 'commander';
import { currentIO } from '../io.js';
import * as load from '../load.js';
import { readVersion } from '../package-version.js';

export function register(program: Command): void {
  program
    .command('version')
    .description('print the versions of offsetctl, Node and the sandbox\'s Kafka')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .addHelpText('after', '\nExamples:\n  offsetctl version\n  offsetctl version -o json | jq -r .node')
    .action(async (opts: { output: 'text' | 'json' }) => {
      const { DEFAULT_KAFKA_VERSION } = await load.sandbox();
      const { sqliteDriver } = await load.store();
      // The release `sandbox up` runs unless told otherwise (--kafka-version).
      const kafka = DEFAULT_KAFKA_VERSION;
      let sqlite: string;
      try {
        sqlite = sqliteDriver();
      } catch (err) {
        sqlite = `unavailable (${(err as Error).message})`;
      }
      const info = { offsetctl: readVersion(), node: process.versions.node, sandboxKafka: kafka, sqlite };
      if (opts.output === 'json') currentIO().stdout.write(`${JSON.stringify(info, null, 2)}\n`);
      else currentIO().stdout.write(`offsetctl ${info.offsetctl}\nnode      ${info.node}\nkafka     ${info.sandboxKafka ?? 'unknown'} (sandbox)\nsqlite    ${info.sqlite}\n`);
    });
}
