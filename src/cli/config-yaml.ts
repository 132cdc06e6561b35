// yaml's parse and stringify for the config file, behind a module of our own: config-file.ts
// imports this lazily. The package itself comes from the engine's loader (one bundled copy of
// yaml in the package, loaded only when a document or the config file is really parsed).
import { loadYaml } from '../arazzo/yaml.js';

export const parse: (text: string) => unknown = (text) => loadYaml().parse(text);
export const stringify: (value: unknown) => string = (value) => loadYaml().stringify(value);
