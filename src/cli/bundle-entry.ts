// The CLI's build entry: scripts/build.mjs bundles this module (not main.ts) into
// dist/bundle/cli/offsetctl.mjs and offsetctl.cjs. It is the only code that knows what the build
// packed beside the bundle (ajv, yaml, undici, node-postgres, the precompiled inputs validators)
// and hands each to the library that uses it; library code never looks for build files
// (test/project/lazy-seam.test.ts). Each provider is a function, called only when a command
// needs the package, so start-up pays for none of them. tsc's output (dist/src/cli/main.js) and
// the tests run main.ts without this module: the libraries use the packages themselves.
import { createRequire } from 'node:module';
import { useBundledEngineParts } from '../arazzo/bundled.js';
import { useBundledUndici } from '../http/bundled.js';
import { useBundledPg } from '../store/bundled.js';

// The bundle's own folder: the packed files sit beside offsetctl.mjs and its chunks.
const beside = createRequire(import.meta.url);

useBundledEngineParts({
  ajv: () => beside('./ajv-bundle.cjs'),
  yaml: () => beside('./yaml-bundle.cjs'),
  inputsValidators: () => beside('./inputs-validators.cjs'),
});
useBundledUndici(() => beside('./undici-bundle.cjs'));
useBundledPg(() => beside('./pg-bundle.cjs'));

export { main } from './main.js';
