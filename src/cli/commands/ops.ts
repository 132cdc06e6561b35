import type { Command } from 'commander';

// Placeholder: the ops command group is being written.
export function register(_program: Command): void {}
