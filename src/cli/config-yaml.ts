// yaml's parse and stringify for the config file, behind a module of our own: config-file.ts
// imports this lazily. (A dynamic import() of the CommonJS `yaml` package itself is not
// translated correctly by esbuild's code splitting: the chunk's namespace lacks the names.)
export { parse, stringify } from 'yaml';
