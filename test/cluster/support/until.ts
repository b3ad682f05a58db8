/** Resolves once `ok()` holds; rejects after `waitMs` naming what was awaited. */
export async function until(what: string, ok: () => boolean, waitMs = 60_000): Promise<void> {
  const end = Date.now() + waitMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
