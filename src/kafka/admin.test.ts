// The admin client's own guard on times (issue 20, point 7): ListOffsets reads -1 as "latest" and
// -2 as "earliest", so a time before 1970 must never reach the broker, whoever the caller is.
// Real parts: a loopback HTTP server.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { KafkaAdmin } from './admin.js';

test('offsetsForTime refuses a time before 1970 or beyond a safe integer before it sends anything', async () => {
  // A "broker" that records every connection: none may be made.
  const sockets: Socket[] = [];
  const server = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const admin = new KafkaAdmin({ bootstrap: [`127.0.0.1:${(server.address() as AddressInfo).port}`] });
  try {
    for (const t of [-1, -2, -3, -1000, Number.MAX_SAFE_INTEGER + 2, Number.NaN, 0.5]) {
      await assert.rejects(admin.offsetsForTime([{ topic: 't', partition: 0 }], t), (err: unknown) => err instanceof RangeError && /is not a timestamp at or after 1970-01-01T00:00:00Z/.test(err.message), String(t));
    }
    assert.equal(sockets.length, 0, 'nothing was sent to the broker');
  } finally {
    await admin.close().catch(() => undefined);
    for (const s of sockets) s.destroy();
    server.close();
  }
});
