/**
 * A value built on its first use and then kept. The contract's zod schemas are built this way: building
 * every method's input schema when the module loads cost the room process ~30 ms of CPU before its first
 * answer (zod does real work per schema), for methods most runs call a few of. The same instance is
 * answered every time, so a schema shared by several inputs stays one schema.
 */
export function lazily<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
