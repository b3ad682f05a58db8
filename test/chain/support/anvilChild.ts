/** A process that starts an anvil (chain/anvil.ts), prints its pid and URL as one JSON line, and waits to be killed. */
import { startAnvil } from '../../../chain/anvil.ts';

const anvil = await startAnvil({ chainId: 31337 });
process.stdout.write(`${JSON.stringify({ pid: anvil.pid, rpcUrl: anvil.rpcUrl })}\n`);
setInterval(() => {}, 1 << 30);
