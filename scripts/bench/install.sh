#!/usr/bin/env bash
# Installs what the benchmark drivers need: the official clients come with the official SDKs that
# scripts/peers/install.sh pins (a2a-sdk 1.3.0 brings httpx; @a2a-js/sdk 1.3.0 has its client), so
# this runs that installer and checks that both CLIENT entry points load. Nothing else is installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

"$root/scripts/peers/install.sh"

"$root/target/peers/py/bin/python" -c 'import httpx, a2a.client; from a2a.client import create_client' \
    || { echo "bench/install.sh: the a2a-sdk client does not import from target/peers/py" >&2; exit 1; }
(cd "$root/target/peers/js" && node -e 'require("@a2a-js/sdk/client").ClientFactory') \
    || { echo "bench/install.sh: @a2a-js/sdk/client does not load from target/peers/js" >&2; exit 1; }
echo "bench/install.sh: official clients ready (a2a-sdk 1.3.0 in target/peers/py, @a2a-js/sdk 1.3.0 in target/peers/js)"
