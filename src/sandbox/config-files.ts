// Renders sandbox/*.template into <dir>/config: `${name}` placeholders are replaced, and a
// placeholder without a value is an error rather than a silently broken property.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function renderTemplate(text: string, values: Record<string, string | number>): string {
  return text.replace(/\$\{(\w+)\}/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`sandbox template placeholder \${${name}} has no value`);
    return String(value);
  });
}

export function writeConfig(assets: string, configDir: string, template: string, target: string, values: Record<string, string | number>): string {
  mkdirSync(configDir, { recursive: true });
  const file = join(configDir, target);
  writeFileSync(file, renderTemplate(readFileSync(join(assets, template), 'utf8'), values));
  return file;
}
