// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectMemberUrl } from './connect-groups.js';

/** Kafka Connect's member metadata: version INT16, url STRING, config_offset INT64 (then, from v1, an allocation). */
function metadata(version: number, url: string, tail = Buffer.alloc(0)): Buffer {
  const u = Buffer.from(url, 'utf8');
  const head = Buffer.alloc(4);
  head.writeInt16BE(version, 0);
  head.writeInt16BE(u.length, 2);
  const offset = Buffer.alloc(8);
  offset.writeBigInt64BE(42n);
  return Buffer.concat([head, u, offset, tail]);
}

test('a Connect member names its worker URL, in the eager (v0) and the cooperative (v1, v2) protocol alike', () => {
  assert.equal(connectMemberUrl(metadata(0, 'http://10.0.0.7:8083/')), 'http://10.0.0.7:8083/');
  assert.equal(connectMemberUrl(metadata(2, 'https://connect-1.prod:8443/', Buffer.from([0, 0, 0, 4, 1, 2, 3, 4]))), 'https://connect-1.prod:8443/');
});

test('metadata of another shape (a consumer\'s, cut short, empty) names no URL', () => {
  assert.equal(connectMemberUrl(undefined), undefined);
  assert.equal(connectMemberUrl(Buffer.alloc(0)), undefined);
  assert.equal(connectMemberUrl(metadata(0, 'http://10.0.0.7:8083/').subarray(0, 10)), undefined);
  // A consumer's subscription: version, then an array of topics (INT32 count): no http URL.
  assert.equal(connectMemberUrl(Buffer.from([0, 1, 0, 0, 0, 1, 0, 6, ...Buffer.from('orders')])), undefined);
});
