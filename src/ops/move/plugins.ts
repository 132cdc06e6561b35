// Is the connector's plugin installed on the target cluster, in the same version, and does its
// configuration validate there? Pure functions over Kafka Connect's answers (GET
// /connector-plugins, PUT /connector-plugins/{class}/config/validate), so the pre-flight of a
// move, a copy and an import refuses before anything is created.

/** One entry of GET /connector-plugins. */
export interface PluginInfo {
  class: string;
  type: string;
  version?: string;
}

/** The plugin a connector runs: its full class name and version on the cluster it runs on. */
export interface ConnectorPlugin {
  class: string;
  version: string | undefined;
}

function simpleName(className: string): string {
  return className.slice(className.lastIndexOf('.') + 1);
}

/**
 * The plugins `connector.class` names: the full class name, or (as Connect accepts) its simple
 * name, or the simple name without a trailing "Connector" (`FileStreamSink`).
 */
export function matchPlugins(connectorClass: string, plugins: readonly PluginInfo[]): PluginInfo[] {
  const wanted = connectorClass.trim();
  const exact = plugins.filter((p) => p.class === wanted);
  if (exact.length > 0) return exact;
  return plugins.filter((p) => {
    const simple = simpleName(p.class);
    return simple === wanted || simple.replace(/Connector$/, '') === wanted;
  });
}

/**
 * The version a connector runs: `connector.plugin.version` when it pins one (Kafka 4.1+,
 * KIP-891), else the single installed version of its class (the newest when several are listed).
 */
export function pluginOf(config: Record<string, string>, plugins: readonly PluginInfo[]): ConnectorPlugin | undefined {
  const cls = config['connector.class'];
  if (!cls) return undefined;
  const matches = matchPlugins(cls, plugins);
  const first = matches[0];
  if (!first) return undefined;
  const pinned = config['connector.plugin.version'];
  const versions = matches.map((m) => m.version).filter((v): v is string => typeof v === 'string');
  return { class: first.class, version: pinned ?? versions.sort(compareVersions).at(-1) };
}

/** Why `plugin` cannot run on a cluster that lists `target`, or undefined when it can. */
export function pluginProblem(plugin: ConnectorPlugin, target: readonly PluginInfo[], options: { allowVersionChange?: boolean } = {}): string | undefined {
  const installed = target.filter((p) => p.class === plugin.class);
  if (installed.length === 0) {
    return `plugin ${plugin.class} is not installed there (it lists ${target.length === 0 ? 'no connector plugins' : target.map((p) => simpleName(p.class)).join(', ')}); install it on every worker of that cluster first`;
  }
  if (plugin.version === undefined || options.allowVersionChange) return undefined;
  if (installed.some((p) => p.version === plugin.version)) return undefined;
  return `plugin ${plugin.class} ${plugin.version} is not installed there (it has ${installed.map((p) => p.version ?? 'an unknown version').join(', ')}); install that version, or accept the other one with --allow-plugin-version-change`;
}

/** One key's complaints from PUT .../config/validate. */
export interface ConfigProblem {
  key: string;
  errors: string[];
}

/** The keys with errors in a validate answer (`error_count` > 0 means invalid, still a 200). */
export function validationProblems(answer: unknown): ConfigProblem[] {
  const configs = (answer as { configs?: Array<{ value?: { name?: string; errors?: string[] } }> } | undefined)?.configs ?? [];
  return configs
    .filter((c) => (c.value?.errors?.length ?? 0) > 0)
    .map((c) => ({ key: String(c.value?.name ?? '?'), errors: c.value?.errors ?? [] }));
}

export function describeProblems(problems: readonly ConfigProblem[], max = 5): string {
  const shown = problems.slice(0, max).map((p) => `${p.key}: ${p.errors.join('; ')}`);
  return shown.join(' | ') + (problems.length > max ? ` (and ${problems.length - max} more)` : '');
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (Number.isNaN(pa[i]) ? 0 : pa[i] ?? 0) - (Number.isNaN(pb[i]) ? 0 : pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}
