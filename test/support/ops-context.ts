// The set-up of tests that call the ops API as a face does (the CLI is one, the web console
// another): a Connect fixture on the sandbox, the one HTTP client and a store in a fresh state
// folder, put together in an OpsContext.
import { HttpClient } from '../../src/http/client.js';
import type { OpsContext } from '../../src/ops/index.js';
import { openStore } from '../../src/store/index.js';
import { connectFixture, tempDir, type ConnectFixture } from './connect.js';

export interface OpsTestContext {
  cluster: ConnectFixture;
  ctx: OpsContext;
  /** Closes the store and the HTTP client, then deletes the fixture's connectors (register with `after`). */
  close(): Promise<void>;
}

/** `statePrefix` names the state folder (a temp folder), so a failed test's store is easy to find. */
export async function startOpsContext(statePrefix: string): Promise<OpsTestContext> {
  const cluster = await connectFixture();
  const http = new HttpClient();
  const ctx: OpsContext = { url: cluster.url, http, store: openStore(tempDir(statePrefix)) };
  return {
    cluster,
    ctx,
    close: async () => {
      await ctx.store.close();
      await http.close();
      await cluster.cleanup();
    },
  };
}
