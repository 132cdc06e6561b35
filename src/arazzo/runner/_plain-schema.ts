// Checking a schema against its meta-schema makes ajv compile the meta-schema first: about half
// of the cost of the first inputs schema in a process. Most inputs schemas use a handful of
// keywords with obviously valid values; for those the meta-schema cannot find anything, so the
// check is skipped. Every other schema is still checked (see inputs.ts).

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const MAX_DEPTH = 32;

/** A plain JSON object (an odd prototype could hand ajv keywords this check never saw). */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isTypeList(value: unknown): boolean {
  if (typeof value === 'string') return JSON_TYPES.has(value);
  return Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'string' && JSON_TYPES.has(t)) && new Set(value).size === value.length;
}

function isNameList(value: unknown): boolean {
  return Array.isArray(value) && value.every((name) => typeof name === 'string') && new Set(value).size === value.length;
}

/** True when every keyword of the schema is one whose valid values this function fully checks. */
export function isPlainSchema(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isRecord(schema) || depth > MAX_DEPTH) return false;
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    switch (key) {
      case 'type':
        if (!isTypeList(value)) return false;
        break;
      case 'properties':
        if (!isRecord(value) || !Object.values(value).every((s) => isPlainSchema(s, depth + 1))) return false;
        break;
      case 'items':
      case 'additionalProperties':
        if (!isPlainSchema(value, depth + 1)) return false;
        break;
      case 'required':
        if (!isNameList(value)) return false;
        break;
      case 'enum': // ajv refuses an empty enum when it compiles
        if (!Array.isArray(value) || value.length === 0) return false;
        break;
      case 'examples':
        if (!Array.isArray(value)) return false;
        break;
      case 'default':
      case 'const':
        break;
      case 'title':
      case 'description':
      case 'format':
        if (typeof value !== 'string') return false;
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value !== 'number' || !Number.isFinite(value)) return false;
        break;
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
      case 'minProperties':
      case 'maxProperties':
        if (!isCount(value)) return false;
        break;
      case 'deprecated':
      case 'readOnly':
      case 'writeOnly':
        if (typeof value !== 'boolean') return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
