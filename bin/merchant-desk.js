#!/usr/bin/env node
// Runs the built CLI (npm run build makes dist/). The sources are TypeScript under main/.
import '../dist/main/cli/main.js';
