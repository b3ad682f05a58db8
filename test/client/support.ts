/** Shared by the client tests: a client signed in with one funded trading portfolio (the local faucet). */
import type { VenueClient } from '../../client/index.ts';

export async function signedInFunded(c: VenueClient, amount: string): Promise<VenueClient> {
  await c.login();
  const { id } = await c.call('POST /api/portfolio/create');
  await c.call('POST /api/portfolio/deposit', { body: { portfolioId: id, amount } });
  return c;
}
