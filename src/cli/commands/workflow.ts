import type { Command } from 'commander';

// Placeholder: the workflow command group is being written.
export function register(program: Command): void {
  program.command('workflow').description('(not yet available)');
}
