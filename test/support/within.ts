/**
 * A safety net for awaiting an event in a test: `within(p, ms, what)` settles like `p`, or
 * rejects with "<what> did not happen within <ms> ms" if `p` has not settled by then. The
 * bound never decides a test that works; it turns a hang into a failure that says where.
 */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
