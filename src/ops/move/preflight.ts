// What must hold on the target cluster before a connector is created there (a move, a copy, an
// import): its plugin is installed in the same version, the name is free (or replacing was asked
// for), and Kafka Connect itself validates the configuration. Returned as problems, not thrown,
// so an import of many connectors lists every refusal before it creates any.
import { OpsError } from '../errors.js';
import type { ClusterRef } from './clusters.js';
import { connectorExists, listPlugins, validateConfig } from './connect-reads.js';
import { describeProblems, pluginProblem, validationProblems, type ConnectorPlugin, type PluginInfo } from './plugins.js';

export interface Landing {
  name: string;
  config: Record<string, string>;
  plugin: ConnectorPlugin;
  /** The name may be taken: the connector there is replaced (import --replace). */
  replace?: boolean;
  /** Keys whose values are not known (a backup without its secrets): validated with a placeholder. */
  unknownSecrets?: readonly string[];
}

export interface LandingOptions {
  allowPluginVersionChange?: boolean;
  /** The target's plugins, when already read (one read for a whole import). */
  plugins?: PluginInfo[];
}

export async function landingProblems(to: ClusterRef, landing: Landing, options: LandingOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const plugins = options.plugins ?? (await listPlugins(to.http, to.url));
  const plugin = pluginProblem(landing.plugin, plugins, { allowVersionChange: options.allowPluginVersionChange ?? false });
  if (plugin) problems.push(plugin);
  if (!landing.replace && (await connectorExists(to.http, to.url, landing.name))) {
    problems.push(`a connector named ${landing.name} exists there already; choose another name${landing.replace === false ? ' or replace it (--replace)' : ''}`);
  }
  // Validation needs the plugin: without it, Connect answers only that it cannot find it.
  if (!plugin) {
    const config: Record<string, string> = { ...landing.config, name: landing.name };
    for (const key of landing.unknownSecrets ?? []) config[key] ??= 'secret-to-be-given';
    // Connect wants the path to name the plugin exactly as connector.class does (an alias stays an alias).
    const invalid = validationProblems(await validateConfig(to.http, to.url, config['connector.class'] ?? landing.plugin.class, config));
    if (invalid.length > 0) problems.push(`Kafka Connect there does not accept its configuration: ${describeProblems(invalid)}`);
  }
  return problems;
}

/** One connector's problems as the refusal (exit 2) that names them all. */
export function refuseLanding(what: string, name: string, url: string, problems: readonly string[]): void {
  if (problems.length === 0) return;
  throw new OpsError('E_PREFLIGHT', `${what} of ${name} to ${url} refused before anything changed: ${problems.join('; ')}. Nothing was changed.`, { field: 'to' });
}
