import type { Command } from 'commander';

// Placeholder: the sandbox command group is being written.
export function register(program: Command): void {
  program.command('sandbox').description('(not yet available)');
}
