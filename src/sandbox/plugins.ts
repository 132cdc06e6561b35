// Real Connect plugins in the sandbox (`offsetctl sandbox up --plugin <name|coordinates>`): what a
// name means, how Maven fetches a plugin once into <sandbox>/plugins/<name>/ (kept across up/down,
// skipped when its marker matches), and the worker properties that load it. Each plugin's folder
// is one entry of the workers' plugin.path, holding one plugin location (a folder of jars), so a
// cached plugin that this `up` did not ask for is never loaded.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from './errors.js';
import { runTool } from './jars.js';
import type { SandboxLayout } from './layout.js';
import { checkMaven } from './prerequisites.js';

/** Maven coordinates `group:artifact:version[:type[:classifier]]`. */
export interface Coordinates {
  groupId: string;
  artifactId: string;
  version: string;
  /** `jar` (default), `tar.gz` or `zip`. */
  type: string;
  classifier?: string;
}

export interface PluginSpec {
  /** The folder name under <sandbox>/plugins and the name status shows. */
  name: string;
  /** An archive to unpack, or the runtime dependencies of a pom (a known one or one made for a jar). */
  source: { kind: 'archive'; artifact: Coordinates } | { kind: 'pom'; pom: string; dependencies: Coordinates[] };
}

/** What state.json records for each plugin the workers load. */
export interface LoadedPlugin {
  name: string;
  /** The Maven coordinates it came from. */
  coordinates: string[];
  /** Its folder: one entry of the workers' plugin.path. */
  dir: string;
}

const ICEBERG = '1.12.0';

/** One part of Maven coordinates (declared before KNOWN_PLUGINS, which parses coordinates). */
const PART = /^[A-Za-z0-9_.-]+$/;

/** The plugins offsetctl knows by name (measured on the sandbox: docs/sandbox.md#plugins). */
export const KNOWN_PLUGINS: Readonly<Record<string, PluginSpec>> = {
  'debezium-postgres': archive('debezium-postgres', 'io.debezium:debezium-connector-postgres:3.6.1.Final:tar.gz:plugin'),
  // 3.6.1.Final of the JDBC sink is not on Maven Central.
  'debezium-jdbc-sink': archive('debezium-jdbc-sink', 'io.debezium:debezium-connector-jdbc:3.6.0.Final:tar.gz:plugin'),
  // No packaged Iceberg Connect runtime is on Central: sandbox/plugins/iceberg-sink/pom.xml lists its parts.
  'iceberg-sink': {
    name: 'iceberg-sink',
    source: {
      kind: 'pom',
      pom: 'plugins/iceberg-sink/pom.xml',
      dependencies: [
        coordinates(`org.apache.iceberg:iceberg-kafka-connect:${ICEBERG}`),
        coordinates(`org.apache.iceberg:iceberg-kafka-connect-events:${ICEBERG}`),
        coordinates(`org.apache.iceberg:iceberg-parquet:${ICEBERG}`),
        coordinates('org.apache.hadoop:hadoop-common:3.4.1'),
        coordinates('org.xerial:sqlite-jdbc:3.46.1.3'),
      ],
    },
  },
};

export const ICEBERG_PLUGIN = 'iceberg-sink';

const MARKER = '.offsetctl-plugin.json';

/** The same maven-dependency-plugin as sandbox/pom.xml, named in full so no pom is needed for `copy`. */
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

function archive(name: string, text: string): PluginSpec {
  return { name, source: { kind: 'archive', artifact: coordinates(text) } };
}

function coordinates(text: string): Coordinates {
  const c = parseCoordinates(text);
  if (!c) throw new Error(`bad built-in coordinates ${text}`);
  return c;
}

/** `g:a:v[:type[:classifier]]` → Coordinates; undefined when it is not of that shape. */
export function parseCoordinates(text: string): Coordinates | undefined {
  const parts = text.split(':');
  if (parts.length < 3 || parts.length > 5 || parts.some((p) => !PART.test(p))) return undefined;
  const [groupId, artifactId, version, type = 'jar', classifier] = parts as [string, string, string, string?, string?];
  if (!['jar', 'tar.gz', 'zip'].includes(type)) return undefined;
  return { groupId, artifactId, version, type, ...(classifier ? { classifier } : {}) };
}

export function formatCoordinates(c: Coordinates): string {
  return [c.groupId, c.artifactId, c.version, ...(c.type !== 'jar' || c.classifier ? [c.type] : []), ...(c.classifier ? [c.classifier] : [])].join(':');
}

/** A `--plugin` value: a known name, or Maven coordinates of any Connect plugin on Maven Central. */
export function parsePluginArg(text: string): PluginSpec {
  const known = KNOWN_PLUGINS[text];
  if (known) return known;
  const c = parseCoordinates(text);
  if (!c) {
    throw new SandboxError('E_USAGE', `--plugin ${JSON.stringify(text)}: give a known plugin (${Object.keys(KNOWN_PLUGINS).join(', ')}) `
      + 'or Maven coordinates group:artifact:version[:type[:classifier]] with type jar, tar.gz or zip '
      + '(e.g. io.debezium:debezium-connector-mysql:3.6.1.Final:tar.gz:plugin)');
  }
  if (c.type === 'jar') return { name: c.artifactId, source: { kind: 'pom', pom: '', dependencies: [c] } };
  return { name: c.artifactId, source: { kind: 'archive', artifact: c } };
}

/** The `--plugin` values of one `up`, deduplicated; two different plugins under one name are refused. */
export function parsePluginArgs(values: readonly string[]): PluginSpec[] {
  const out = new Map<string, PluginSpec>();
  for (const v of values) {
    const spec = parsePluginArg(v);
    const seen = out.get(spec.name);
    if (seen && pluginCoordinates(seen).join(' ') !== pluginCoordinates(spec).join(' ')) {
      const both = `${pluginCoordinates(seen).join(', ')} and ${pluginCoordinates(spec).join(', ')}`;
      throw new SandboxError('E_USAGE', `--plugin: two plugins named ${spec.name} (${both}): give one of them`);
    }
    out.set(spec.name, spec);
  }
  return [...out.values()];
}

export function pluginCoordinates(spec: PluginSpec): string[] {
  return spec.source.kind === 'archive' ? [formatCoordinates(spec.source.artifact)] : spec.source.dependencies.map(formatCoordinates);
}

/** <sandbox>/plugins: the cache of resolved plugins, kept across up, down and fresh starts. */
export function pluginsRoot(layout: SandboxLayout): string {
  return join(layout.dir, 'plugins');
}

export function pluginDir(layout: SandboxLayout, name: string): string {
  return join(pluginsRoot(layout), name);
}

/** The lines added to every worker's properties: one plugin.path entry per loaded plugin. */
export function pluginProperties(plugins: readonly LoadedPlugin[]): string {
  if (plugins.length === 0) return '';
  return [
    '# Plugins of `offsetctl sandbox up --plugin` (their ServiceLoader manifests suit plugin.discovery=service_load):',
    `plugin.path=${plugins.map((p) => p.dir).join(',')}`,
    '',
  ].join('\n');
}

/** Debezium and Iceberg in one JVM are tight in 512 MB (measured): 1 GB when any plugin is loaded. */
export function workerHeap(plugins: readonly LoadedPlugin[] | undefined): string {
  return plugins && plugins.length > 0 ? '1g' : '512m';
}

/** What the marker holds: the coordinates and, for a pom of the sandbox's, the pom itself (a changed pom fetches again). */
export function fingerprint(spec: PluginSpec, assets: string): string {
  const hash = createHash('sha256').update(pluginCoordinates(spec).join('\n'));
  if (spec.source.kind === 'pom' && spec.source.pom) hash.update(readFileSync(join(assets, spec.source.pom)));
  return hash.digest('hex');
}

export function pluginResolved(layout: SandboxLayout, spec: PluginSpec, assets: string): boolean {
  const marker = join(pluginDir(layout, spec.name), MARKER);
  if (!existsSync(marker)) return false;
  try {
    return (JSON.parse(readFileSync(marker, 'utf8')) as { fingerprint?: string }).fingerprint === fingerprint(spec, assets);
  } catch {
    return false;
  }
}

/** Makes sure every plugin is in the cache (Maven only for the missing ones); returns what state.json records. */
export async function resolvePlugins(layout: SandboxLayout, specs: readonly PluginSpec[], assets: string,
  progress: (line: string) => void): Promise<LoadedPlugin[]> {
  const out: LoadedPlugin[] = [];
  for (const spec of specs) {
    const dir = pluginDir(layout, spec.name);
    if (!pluginResolved(layout, spec, assets)) {
      try {
        await resolvePlugin(layout, spec, assets, progress);
      } catch (err) {
        // Leave no half-filled folder in the cache (it would not count as resolved anyway).
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
    out.push({ name: spec.name, coordinates: pluginCoordinates(spec), dir });
  }
  return out;
}

async function resolvePlugin(layout: SandboxLayout, spec: PluginSpec, assets: string, progress: (line: string) => void): Promise<void> {
  checkMaven();
  const dir = pluginDir(layout, spec.name);
  // A half-resolved folder from an interrupted run could mix versions: start it over.
  rmSync(dir, { recursive: true, force: true });
  const work = join(dir, '.build');
  mkdirSync(work, { recursive: true });
  progress(`resolving the plugin ${spec.name} (${pluginCoordinates(spec).join(', ')}) with Maven into ${dir} (first time only)`);
  if (spec.source.kind === 'archive') {
    const c = spec.source.artifact;
    await maven(spec, ['-q', '-B', `${DEPENDENCY_PLUGIN}:copy`, `-Dartifact=${artifactArg(c)}`, `-DoutputDirectory=${work}`], layout.dir);
    const archive = readdirSync(work).find((f) => f.endsWith(`.${c.type}`));
    if (!archive) throw new SandboxError('E_SANDBOX_JARS', `Maven reported success but left no .${c.type} of ${formatCoordinates(c)} in ${work}`);
    // tar for .tar.gz; the JDK's jar tool unpacks a zip (unzip is not always installed).
    const unpack = c.type === 'tar.gz'
      ? await runTool('tar', ['-xzf', join(work, archive), '-C', dir], dir)
      : await runTool('jar', ['xf', join(work, archive)], dir);
    if (unpack.status !== 0) {
      throw new SandboxError('E_SANDBOX_JARS', `unpacking ${archive} failed (exit ${unpack.status}): ${unpack.text.trim().split('\n').slice(-10).join('\n')}`);
    }
    moveLooseJars(dir, spec.name);
  } else {
    const pom = spec.source.pom ? join(assets, spec.source.pom) : writeJarPom(work, spec.source.dependencies);
    const target = join(dir, spec.name);
    await maven(spec, ['-q', '-B', '-f', pom, `${DEPENDENCY_PLUGIN}:copy-dependencies`, '-DincludeScope=runtime', `-DoutputDirectory=${target}`], layout.dir);
  }
  rmSync(work, { recursive: true, force: true });
  const jars = countJars(dir);
  if (jars === 0) {
    const what = `${spec.name} (${pluginCoordinates(spec).join(', ')})`;
    throw new SandboxError('E_SANDBOX_JARS', `the plugin ${what} has no jar after unpacking: is it a Kafka Connect plugin?`);
  }
  const marker = { name: spec.name, coordinates: pluginCoordinates(spec), fingerprint: fingerprint(spec, assets), jars };
  writeFileSync(join(dir, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
}

function artifactArg(c: Coordinates): string {
  return [c.groupId, c.artifactId, c.version, c.type, ...(c.classifier ? [c.classifier] : [])].join(':');
}

async function maven(spec: PluginSpec, args: string[], cwd: string): Promise<void> {
  const result = await runTool('mvn', args, cwd);
  if (result.status !== 0) {
    throw new SandboxError('E_SANDBOX_JARS', `Maven could not resolve the plugin ${spec.name} (${pluginCoordinates(spec).join(', ')}; exit ${result.status}). `
      + 'Check the coordinates on Maven Central and that it is reachable (proxy settings in ~/.m2/settings.xml). '
      + `Maven said:\n${result.text.split('\n').slice(-25).join('\n')}`);
  }
}

/** A plugin that is one jar with dependencies: a pom with that one dependency, for copy-dependencies. */
function writeJarPom(work: string, deps: readonly Coordinates[]): string {
  const file = join(work, 'pom.xml');
  const dependencies = deps.map((d) => `    <dependency><groupId>${d.groupId}</groupId><artifactId>${d.artifactId}</artifactId>`
    + `<version>${d.version}</version>${d.classifier ? `<classifier>${d.classifier}</classifier>` : ''}</dependency>`).join('\n');
  writeFileSync(file, `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.offsetctl</groupId>
  <artifactId>offsetctl-sandbox-plugin</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies}
  </dependencies>
</project>
`);
  return file;
}

/** An archive with jars at its top level would make each jar a plugin of its own: gather them in one folder. */
function moveLooseJars(dir: string, name: string): void {
  const loose = readdirSync(dir).filter((f) => f.endsWith('.jar'));
  if (loose.length === 0) return;
  const target = join(dir, name);
  mkdirSync(target, { recursive: true });
  for (const f of loose) renameSync(join(dir, f), join(target, f));
}

function countJars(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) n += countJars(join(dir, entry.name));
    else if (entry.name.endsWith('.jar')) n++;
  }
  return n;
}

/** The folder of jars of a pom-made plugin (the Iceberg sink's: the REST catalog runs on them too). */
export function pluginJarFolder(layout: SandboxLayout, name: string): string {
  return join(pluginDir(layout, name), name);
}
