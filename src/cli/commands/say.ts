// Where the operator commands write: everything shown to a person goes through here, and
// registered secrets are masked on the way out (the journal and snapshots keep the real values,
// which resume and rollback replay).
import { redactText } from '../../http/redact.js';

export function stdout(text: string): boolean {
  return process.stdout.write(redactText(text));
}

export function stderr(text: string): boolean {
  return process.stderr.write(redactText(text));
}
