// A known verb registers only the command group verbs.ts maps it to (fast start). A verb mapped to
// a group that does not register it would be "unknown command"; this checks every mapping.
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Command } from 'commander';
import { OWN_GROUP } from './verbs.js';

test('every verb with its own group is registered by that group', async () => {
  for (const [verb, load] of Object.entries(OWN_GROUP)) {
    const program = new Command('offsetctl');
    (await load()).register(program);
    const names = program.commands.map((c) => c.name());
    assert.ok(names.includes(verb), `${verb} is mapped to a group that registers ${names.join(', ')}`);
  }
});
