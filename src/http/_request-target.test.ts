// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { splitRequestUrl } from './_request-target.js';

// What undici's request(url) sends for a URL string: the reference every case must agree with.
function viaUrl(url: string): { origin: string; path: string } {
  const u = new URL(url);
  return { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
}

describe('request targets: origin and path exactly as URL parsing gives them', () => {
  it('splits plain URLs without changing them', () => {
    assert.deepEqual(splitRequestUrl('http://127.0.0.1:8083/connectors/sink/offsets'), { origin: 'http://127.0.0.1:8083', path: '/connectors/sink/offsets' });
    assert.deepEqual(splitRequestUrl('https://connect.example:8443/counter/a%20b/next?limit=10&x=%2F'), {
      origin: 'https://connect.example:8443',
      path: '/counter/a%20b/next?limit=10&x=%2F',
    });
  });
  it('agrees with URL parsing on every URL it could change', () => {
    const urls = [
      'http://HOST.Example:80/a',
      'https://h:443/a/',
      'http://u:p@h:1/x',
      'http://h:1',
      'http://h:1?x=1',
      'http://h:1/a?',
      'http://h:1/a/../b',
      'http://h:1/a/%2e%2E/b',
      'http://h:1/./a',
      'http://h:1/a b?c d',
      "http://h:1/a?q='x'",
      'http://h:1/a#frag',
      'http://h:1/a/{b}|^`',
      'http://h:1/caf\u00e9?\u00fc=1',
      'http://h:1\\a',
      'http://[::1]:9/v?x=[1]',
    ];
    for (const url of urls) assert.deepEqual(splitRequestUrl(url), viaUrl(url), url);
  });
  it('refuses what undici refuses', () => {
    assert.throws(() => splitRequestUrl('ftp://h/a'), /must start with `http:` or `https:`/);
    assert.throws(() => splitRequestUrl('not a url'), /Invalid URL/);
  });
});
