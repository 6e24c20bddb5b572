#!/usr/bin/env bash
# npm test: type-check, the Electron shell's security check (electronegativity), lint, format check (prettier), unit
# and integration tests (vitest), end-to-end tests (Playwright on Chromium). Installs the system programs it needs
# first where it can (scripts/ensure-system-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh
echo "== build (type-checks main and preload)"
npm run build --silent
echo "== Electron shell security check (electronegativity over the build; offline)"
node scripts/electronegativity.mjs
echo "== type-check (renderer, tests)"
node scripts/tsc7.mjs -p tsconfig.renderer.json
node scripts/tsc7.mjs -p tsconfig.test.json
echo "== lint and format"
npx eslint --max-warnings 0 .
npx prettier --check . --log-level warn
echo "== unit and integration tests"
bash scripts/with-keyring.sh npx vitest run
echo "== end-to-end tests"
bash scripts/with-keyring.sh npx playwright test
