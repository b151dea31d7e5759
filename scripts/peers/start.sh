#!/usr/bin/env bash
# Starts one official-SDK peer in the foreground on 127.0.0.1.
#   scripts/peers/start.sh NAME PORT [--step-ms MS] [--exit-on-stdin-eof]
# NAME: python-honest | python-over-declaring | python-silent-push | python-v03 | python-signed | python-grpc |
#       python-extensions | python-traced |
#       js-honest | js-over-declaring | js-signed | js-grpc
#       | python-authenticated | js-authenticated (these need A2A_PEER_BEARER_TOKEN in the environment)
# The peer serves its card at /.well-known/agent-card.json, JSON-RPC at /a2a/jsonrpc and
# HTTP+JSON under /a2a/rest. It runs scripts/peers/install.sh first (A2A_PEERS_DIR: where they are). The interpreter replaces this
# shell (exec), so the pid you started is the peer's own.
set -euo pipefail

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[[ $# -ge 2 ]] || usage
name="$1"
port="$2"
shift 2
[[ "$port" =~ ^[0-9]+$ ]] || { echo "start.sh: PORT must be a number, got '$port'" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
peers="${A2A_PEERS_DIR:-$root/target/peers}"
py="$peers/py/bin/python"
export A2A_PEERS_JS_DIR="${A2A_PEERS_JS_DIR:-$peers/js}"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

case "$name" in
    python-honest) script="$here/python/honest.py" ;;
    python-over-declaring) script="$here/python/over_declaring.py" ;;
    python-silent-push) script="$here/python/silent_push.py" ;;
    python-v03) script="$here/python/v03.py" ;;
    python-signed) script="$here/python/signed.py" ;;
    python-grpc) script="$here/python/grpc_peer.py" ;;
    python-extensions) script="$here/python/extensions.py" ;;
    python-traced) script="$here/python/traced.py" ;;
    js-honest) script="$here/js/honest.mjs" ;;
    js-over-declaring) script="$here/js/over_declaring.mjs" ;;
    js-signed) script="$here/js/signed.mjs" ;;
    js-grpc) script="$here/js/grpc.mjs" ;;
    python-authenticated) script="$here/python/authenticated.py" ;;
    js-authenticated) script="$here/js/authenticated.mjs" ;;
    *)
        echo "start.sh: unknown peer '$name'" >&2
        usage
        ;;
esac

# The peers are installed first (idempotent: skipped in a moment while their stamps match), so a
# script that starts one works on a fresh clone; a failed install says why and stops here.
bash "$here/install.sh" >&2 || { echo "start.sh: the peers could not be installed (scripts/peers/install.sh above)" >&2; exit 3; }

case "$script" in
    *.py)
        [[ -x "$py" ]] || { echo "start.sh: $py missing: run scripts/peers/install.sh" >&2; exit 3; }
        exec "$py" "$script" --port "$port" "$@"
        ;;
    *.mjs)
        exec node "$script" --port "$port" "$@"
        ;;
esac
