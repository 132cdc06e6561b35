// V8 flags a command runs with, set before any of its code runs. The launcher's code cache
// (code-cache.ts) must compile the bundle under the same flags the cache is later written with
// (V8 refuses cached code made under other flags), so both main() and the launcher ask here.

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles that module a second time,
 * optimised, on a background thread, and Node 20 waits for background compilations before it
 * exits: 200-450 ms after the last answer of every short command (Node 24 does not wait; the flag
 * changes nothing measurable there). V8's baseline compiler alone (Liftoff) parses a CLI's few
 * responses just as well; the long-running web console keeps the optimising tier.
 *
 * @param args the arguments after prepareArgs (the verb first)
 * @example startupV8Flags(['rewind', 'c1'])  // ['--liftoff-only']
 * @example startupV8Flags(['ui'])            // []
 */
export function startupV8Flags(args: readonly string[]): string[] {
  return args[0] === 'ui' ? [] : ['--liftoff-only'];
}
