#!/usr/bin/env bash
# The same profile certified twice on this machine (issue 32): once on the local backend, once on two
# clusters the suite starts with `up` under other names than the roles and describes as an external
# deployment (docs/examples/external-local.yaml, whose fault commands call the suite's own `fault` CLI).
# `compare LOCAL EXTERNAL` then lists per requirement what changed: exit 0 when nothing that passed
# locally fails or goes unknown externally.
#
#   docs/examples/external-vs-local.sh PROFILE OUT_DIR [certify options...]
#   e.g. docs/examples/external-vs-local.sh geo-replication /tmp/evl --select "not test_spec_check"
#
# Runs from the checkout with pulsar-conformance on PATH (the venv active, or .tox/certify/bin first
# in PATH). The `up` deployment is stopped on success, failure and Ctrl-C. Not run in CI (each profile
# takes two certifications); docs/deployments.md gives the figures of the runs made here.
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: $0 PROFILE OUT_DIR [certify options...]" >&2
    echo "fix: give a profile whose roles external-local.yaml maps (geo-replication, tenant-migration) and a new folder" >&2
    exit 64
fi
profile=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
file="$here/external-local.yaml"
if [ -e "$out" ]; then
    echo "$0: $out exists" >&2
    echo "fix: name a folder that does not exist yet (the two bundles and compare's output go there)" >&2
    exit 64
fi
command -v pulsar-conformance >/dev/null || {
    echo "$0: pulsar-conformance is not on PATH" >&2
    echo "fix: activate the checkout's venv, or put .tox/certify/bin first in PATH" >&2
    exit 64
}
mkdir -p "$out"

cleanup() { pulsar-conformance down --name external-local >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# the ports external-local.yaml names
pulsar-conformance up --name external-local --clusters us-east,us-west \
    --port us-east.broker=16650 --port us-east.web=18080 \
    --port us-west.broker=16651 --port us-west.web=18081 > "$out/up.json"
pulsar-conformance plan --deployment "$file" --profile "$profile" > "$out/plan.txt" || true
set +e
pulsar-conformance certify --deployment "$file" --profile "$profile" --out "$out/external" "$@"
echo "external: exit $?" | tee "$out/exits.txt"
set -e
cleanup

set +e
pulsar-conformance certify --profile "$profile" --out "$out/local" "$@"
echo "local: exit $?" | tee -a "$out/exits.txt"
pulsar-conformance compare "$out/local" "$out/external" > "$out/compare.txt"
echo "compare: exit $?" | tee -a "$out/exits.txt"
set -e
cat "$out/compare.txt"
