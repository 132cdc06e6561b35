// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchPlugins, pluginOf, pluginProblem, validationProblems } from './plugins.js';

const sink = { class: 'org.apache.kafka.connect.file.FileStreamSinkConnector', type: 'sink', version: '3.9.1' };
const mirror = { class: 'org.apache.kafka.connect.mirror.MirrorSourceConnector', type: 'source', version: '3.9.1' };

test('connector.class may be the full name, the simple name or the simple name without "Connector"', () => {
  for (const name of [sink.class, 'FileStreamSinkConnector', 'FileStreamSink']) assert.deepEqual(matchPlugins(name, [sink, mirror]), [sink], name);
  assert.deepEqual(matchPlugins('FileStream', [sink, mirror]), []);
  assert.deepEqual(pluginOf({ 'connector.class': 'FileStreamSink' }, [sink]), { class: sink.class, version: '3.9.1' });
  assert.deepEqual(pluginOf({ 'connector.class': 'FileStreamSink', 'connector.plugin.version': '3.8.0' }, [sink]), { class: sink.class, version: '3.8.0' });
  assert.equal(pluginOf({ 'connector.class': 'Nope' }, [sink]), undefined);
});

test('a missing plugin or another version is a problem naming what the target has; the version check can be waived', () => {
  const plugin = { class: sink.class, version: '3.9.1' };
  assert.equal(pluginProblem(plugin, [sink]), undefined);
  assert.match(pluginProblem(plugin, [mirror]) ?? '', /FileStreamSinkConnector is not installed there \(it lists MirrorSourceConnector\)/);
  const newer = { ...sink, version: '4.1.0' };
  assert.match(pluginProblem(plugin, [newer]) ?? '', /3\.9\.1 is not installed there \(it has 4\.1\.0\).*--allow-plugin-version-change/);
  assert.equal(pluginProblem(plugin, [newer], { allowVersionChange: true }), undefined);
});

test('validation problems are the keys with errors', () => {
  const answer = { error_count: 1, configs: [{ value: { name: 'file', errors: [] } }, { value: { name: 'tasks.max', errors: ['Invalid value x for configuration tasks.max: Not a number of type INT'] } }] };
  assert.deepEqual(validationProblems(answer), [{ key: 'tasks.max', errors: ['Invalid value x for configuration tasks.max: Not a number of type INT'] }]);
  assert.deepEqual(validationProblems({}), []);
});
