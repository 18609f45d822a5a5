#!/usr/bin/env node
// memloom runs its TypeScript sources directly through tsx: no build step between a clone and a start.
import '../src/v8-flags.mjs';
import { register } from 'tsx/esm/api';

register();
await import('../apps/cli/main.ts');
