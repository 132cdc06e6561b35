import type { Command } from 'commander';

// Placeholder: the cluster command group is being written.
export function register(_program: Command): void {}
