// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ArazzoError, REFUSAL_CODES } from '../arazzo/errors.js';
import { OpsError } from '../ops/errors.js';
import { StoreError } from '../store/errors.js';
import { KafkaError } from '../kafka/errors.js';
import { SandboxError } from '../sandbox/errors.js';
import { EXIT_STATUS, exitStatusFor, formatError, ReportedFailure } from './exit-status.js';

test('the table agrees with the engine\'s own list of refusals', () => {
  for (const code of REFUSAL_CODES) assert.equal(EXIT_STATUS[code], 2, code);
  assert.equal(exitStatusFor(new ArazzoError('E_HTTP', 'x')), 1);
});

test('exit status comes from the code alone, never from the message', () => {
  assert.equal(exitStatusFor(new OpsError('E_UNREACHABLE', 'GET http://x failed: connection refused')), 2);
  assert.equal(exitStatusFor(new OpsError('E_CONNECT_API', 'refused before anything changed')), 1);
  assert.equal(exitStatusFor(new StoreError('E_LOCKED', 'busy')), 2);
  assert.equal(exitStatusFor(new SandboxError('E_SANDBOX_DEMO', 'rewind failed')), 1);
  assert.equal(exitStatusFor(new ReportedFailure('E_RUN_FAILED')), 1);
  assert.equal(exitStatusFor(new Error('E_USAGE')), 1, 'an error without a code');
  assert.equal(exitStatusFor({ code: 'E_SOMETHING_NEW' }), 1, 'an unknown code');
});

test('lower layers give neutral hints; only a command with connection flags turns them into flag advice', () => {
  const refused = new OpsError('E_CONNECT_API', 'GET /connectors: Kafka Connect answered 401: no (the credentials were refused)', { status: 401, hint: 'credentials' });
  assert.doesNotMatch(refused.message, /--/, 'ops names no flags');
  assert.match(formatError(refused, { flagAdvice: true }), /the credentials were refused\) — check --user with --password-env/);
  assert.doesNotMatch(formatError(refused), /--user/);
  const tls = new OpsError('E_UNREACHABLE', 'GET https://x failed: TLS error SELF_SIGNED_CERT_IN_CHAIN: … (the server\'s certificate is not trusted here); nothing was changed', { hint: 'tls-trust' });
  assert.match(formatError(tls, { flagAdvice: true }), /use --ca for a private CA/);
  // A workflow run has no --ca: it is not told about it.
  assert.doesNotMatch(formatError(tls, { flagAdvice: false }), /--ca|--insecure/);
});

test('Kafka reads happen while planning: their errors are refusals, and a refused SASL login gets Kafka flag advice', () => {
  const denied = new KafkaError('E_KAFKA', 'Kafka at 127.0.0.1:9092 as ops (SCRAM-SHA-512): cannot read the cluster metadata: failed (SASL authentication failed)', { hint: 'kafka-credentials' });
  assert.equal(exitStatusFor(denied), 2);
  assert.equal(exitStatusFor(new KafkaError('E_KAFKA_TOPIC_NOT_FOUND', 'topic x does not exist')), 2);
  assert.doesNotMatch(denied.message, /--/, 'the Kafka layer names no flags');
  assert.match(formatError(denied, { flagAdvice: true }), /\[E_KAFKA\].*SASL authentication failed\) — check --kafka-sasl-user/);
});
