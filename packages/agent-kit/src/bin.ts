#!/usr/bin/env node
/** The `switchboard` command of the kit (`npx switchboard check-agent <url>`). */
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
