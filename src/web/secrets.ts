// What of a connector's configuration may reach the browser. Connector configs carry database
// passwords, SASL JAAS lines, API keys: any key that names a credential is replaced by
// "(hidden)" here, on the server, and every other value still passes the registered-secret mask.
import { redactText } from '../http/redact.js';

const SECRET_KEY = /pass(word|wd|phrase)?|secret|token|credential|api[._-]?key|access[._-]?key|private[._-]?key|\.key$|keystore|truststore|jaas|sasl|auth/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Sorted [key, value, hidden] rows; hidden rows carry an empty value. */
export function safeConfig(config: Record<string, string>): Array<[string, string, boolean]> {
  return Object.keys(config).sort().map((k) => (isSecretKey(k) ? [k, '', true] : [k, redactText(String(config[k])), false]));
}
