// The stylesheet, the script and htmx, read once from the package (nothing from a CDN).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: string;
  type: string;
}

export function loadAssets(): Map<string, Asset> {
  const here = (file: string): string => fileURLToPath(new URL(`../../../src/web/assets/${file}`, import.meta.url));
  const require = createRequire(import.meta.url);
  return new Map<string, Asset>([
    ['app.css', { body: readFileSync(here('app.css'), 'utf8'), type: 'text/css; charset=utf-8' }],
    ['app.js', { body: readFileSync(here('app.js'), 'utf8'), type: 'text/javascript; charset=utf-8' }],
    ['htmx.min.js', { body: readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8'), type: 'text/javascript; charset=utf-8' }],
  ]);
}
