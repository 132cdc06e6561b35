// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { HttpSender } from '../http/client.js';
import { refuseIfGovernedElsewhere, storeWithoutSecrets } from './governance-check.js';

test('the store a marker shows: scheme, host, port and database; no login, password or parameters', () => {
  assert.equal(storeWithoutSecrets('postgres://alice@db.internal:5432/offsetctl?sslmode=verify-full&sslrootcert=/ca.crt'), 'postgres://db.internal:5432/offsetctl');
  assert.equal(storeWithoutSecrets('postgresql://u:secret@db/offsetctl'), 'postgresql://db/offsetctl');
  assert.doesNotMatch(storeWithoutSecrets('not a url secret'), /secret/);
});

test('no marker is read, and nothing sent, with a team store or without a bootstrap', async () => {
  const sent: string[] = [];
  const untouchable: HttpSender = {
    send: (r) => {
      sent.push(r.url);
      return Promise.reject(new Error('nothing may be sent'));
    },
  };
  const conn = { url: 'http://127.0.0.1:8083', http: untouchable, store: { stateDir: '/tmp/x' } };
  await refuseIfGovernedElsewhere(conn, {}, {});
  await refuseIfGovernedElsewhere({ ...conn, store: { stateDir: '/tmp/x', store: 'postgres://alice@db/offsetctl' } }, { bootstrap: '127.0.0.1:9092' }, {});
  assert.deepEqual(sent, []);
});
