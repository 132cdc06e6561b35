// A small Avro binary decoder driven by the writer's schema, enough for Apache Iceberg's control
// events (records, unions, arrays, maps, fixed, enums, the primitives). Iceberg's sink writes each
// event with AvroEncoderUtil: the magic bytes C2 01, the writer schema as Java's writeUTF (an
// unsigned 16-bit length, then the JSON), then the datum. Logical types are left as their base type.

export type AvroSchema = string | AvroSchema[] | { type: string; name?: string; namespace?: string; [k: string]: unknown };

export class AvroReader {
  #at = 0;
  readonly #named = new Map<string, AvroSchema>();
  constructor(private readonly buf: Buffer, at = 0) { this.#at = at; }

  long(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.#at >= this.buf.length) throw new Error('Avro data ends inside a number');
      const b = this.buf[this.#at++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new Error('Avro number longer than 64 bits');
    }
    return (result >> 1n) ^ -(result & 1n); // zig-zag
  }

  #bytes(n: number): Buffer {
    if (n < 0 || this.#at + n > this.buf.length) throw new Error(`Avro data ends inside a field of ${n} bytes`);
    const out = this.buf.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }

  read(schema: AvroSchema, ns = ''): unknown {
    if (Array.isArray(schema)) return this.read(schema[Number(this.long())] ?? fail(`union branch out of range`), ns);
    if (typeof schema === 'string') return this.#primitive(schema, ns);
    const { type } = schema;
    const space = typeof schema.namespace === 'string' ? schema.namespace : ns;
    if (typeof schema.name === 'string') this.#named.set(fullName(schema.name, space), schema);
    switch (type) {
      case 'record': {
        const out: Record<string, unknown> = {};
        for (const f of schema.fields as Array<{ name: string; type: AvroSchema }>) out[f.name] = this.read(f.type, space);
        return out;
      }
      case 'array': case 'map': {
        const items: unknown[] = [];
        const map: Record<string, unknown> = {};
        for (let n = Number(this.long()); n !== 0; n = Number(this.long())) {
          if (n < 0) { n = -n; this.long(); } // a block with its byte size
          for (let i = 0; i < n; i++) {
            if (type === 'map') map[this.#primitive('string', space) as string] = this.read(schema.values as AvroSchema, space);
            else items.push(this.read(schema.items as AvroSchema, space));
          }
        }
        return type === 'map' ? map : items;
      }
      case 'fixed': return this.#bytes(schema.size as number);
      case 'enum': return (schema.symbols as string[])[Number(this.long())];
      default: return this.#primitive(type, space);
    }
  }

  #primitive(type: string, ns: string): unknown {
    switch (type) {
      case 'null': return null;
      case 'boolean': return this.#bytes(1)[0] === 1;
      case 'int': case 'long': return this.long();
      case 'float': return this.#bytes(4).readFloatLE(0);
      case 'double': return this.#bytes(8).readDoubleLE(0);
      case 'bytes': return this.#bytes(Number(this.long()));
      case 'string': return this.#bytes(Number(this.long())).toString('utf8');
      default: {
        const named = this.#named.get(fullName(type, ns)) ?? this.#named.get(type);
        if (!named) throw new Error(`Avro schema names an unknown type ${type}`);
        return this.read(named, ns);
      }
    }
  }
}

function fullName(name: string, ns: string): string {
  return name.includes('.') || !ns ? name : `${ns}.${name}`;
}

function fail(why: string): never {
  throw new Error(`Avro data: ${why}`);
}

/** Iceberg's framing (AvroEncoderUtil): the writer schema and where the datum starts; undefined when not framed so. */
export function icebergFramed(value: Buffer): { schema: AvroSchema; at: number } | undefined {
  if (value.length < 4 || value[0] !== 0xc2 || value[1] !== 0x01) return undefined;
  const length = value.readUInt16BE(2);
  return { schema: JSON.parse(value.toString('utf8', 4, 4 + length)) as AvroSchema, at: 4 + length };
}
