// offsetctl's own version, from the package.json this build ships with (`--version`, `version`).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The version in package.json (three folders above dist/src/cli and dist/bundle/cli alike). */
export function readVersion(): string {
  const pkg = fileURLToPath(new URL('../../../package.json', import.meta.url));
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}
