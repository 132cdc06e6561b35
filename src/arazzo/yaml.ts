// The yaml package the engine parses documents with, loaded on first use (one bundled copy in the
// package): the CLI's config file reads and writes YAML through this door, without the engine.
export { loadYaml, type Yaml } from './_on-demand.js';
