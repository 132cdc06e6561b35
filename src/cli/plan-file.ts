// Saved plans as files: `--plan-out <file>` writes one, `offsetctl apply <file>` reads it. The
// document is ops data (src/ops/changes/saved-plan.ts); this file only writes and reads the text.
// Written whole or not at all (a temporary file renamed over the target), so a plan interrupted
// while being written is never half a plan. A relative file is the IO's working folder's (io.ts).
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Plan } from '../ops/index.js';
import type { PlannedBy, SavedPlan } from '../ops/changes/index.js';
import { OpsError } from '../ops/errors.js';
import type { Store } from '../store/index.js';
import { cliActor } from './actor.js';
import { fromCwd } from './io.js';
import { readSavedPlan, savePlan } from '../ops/changes/index.js';

/** Writes the plans as one saved plan; resolves with the line that tells the operator what was written. */
export async function writeSavedPlan(file: string, plans: readonly Plan[], store: Store, selection?: string): Promise<string> {
  const doc = savePlan(plans, { plannedBy: await storeActor(store), ...(selection ? { selection } : {}) });
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const target = fromCwd(file);
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new OpsError('E_USAGE', `cannot write the plan to ${file}: ${(err as Error).message}`, { field: 'plan-out', cause: err });
  }
  const what = plans.length === 1 ? `${doc.operation} of ${plans[0]!.connector}` : `${doc.operation} of ${plans.length} connectors`;
  return `plan saved to ${file} (${what}, ${doc.digest.slice(0, 19)}…); nothing was changed. Apply it with \`offsetctl apply ${file}\` (within 24 h by default)`;
}

/** The OS login, and on a team store the database login PostgreSQL authenticated (then the name shown). */
export async function storeActor(store: Store): Promise<PlannedBy> {
  const os = cliActor();
  const { dbUser } = await store.describe();
  return dbUser ? { ...os, user: dbUser, dbUser } : os;
}

/** Reads a saved plan and checks its digest (E_PLAN_INVALID when it was edited). */
export async function readSavedPlanFile(file: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(fromCwd(file), 'utf8');
  } catch (err) {
    throw new OpsError('E_USAGE', `cannot read the plan ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`, { field: 'plan', cause: err });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new OpsError('E_PLAN_INVALID', `${file} is not JSON (${(err as Error).message}): a plan is the file \`--plan-out\` wrote, unedited`, { field: 'plan', cause: err });
  }
  return readSavedPlan(doc, file);
}
