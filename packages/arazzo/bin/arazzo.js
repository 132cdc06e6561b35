#!/usr/bin/env node
// `arazzo validate|lint|plan|run <document>`: see README.md.
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
