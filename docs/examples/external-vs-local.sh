#!/usr/bin/env bash
# The same profile certified twice on this machine (issue 32): once on the local backend, once on
# clusters the suite starts and describes as an external deployment (under other names than the roles,
# but for cluster-migration's), whose fault commands call the suite's own `fault` CLI:
#   geo-replication, tenant-migration  two clusters (docs/examples/external-local.yaml)
#   cluster-migration                  three, blue with the scenarios' broker settings, certified with
#                                      --allow-irreversible (docs/examples/external-local-three.yaml)
#   client-failover                    three, each trusting its own token secret
#                                      (docs/examples/external-local-failover.yaml)
#   policy-sync                        three whose configuration stores sync (up --metadata-sync), broker
#                                      clocks under the suite's control (--clock-control), certified with
#                                      --allow-irreversible (docs/examples/external-local-sync.yaml)
#   metadata-migration                 one standalone on a ZooKeeper with an Oxia server beside it (up --metadata
#                                      zk --oxia, release PULSAR_VERSION, default 4.2.4), certified with
#                                      --allow-irreversible; pass --select test_migration_with_traffic (one
#                                      migration a cluster) (docs/examples/external-local-migration.yaml)
# `compare LOCAL EXTERNAL` then lists per requirement what changed: exit 0 when nothing that passed
# locally fails or goes unknown externally.
#
#   docs/examples/external-vs-local.sh PROFILE OUT_DIR [certify options...]
#   e.g. docs/examples/external-vs-local.sh geo-replication /tmp/evl --select "not test_spec_check"
#
# Runs from the checkout with pulsar-conformance on PATH (the venv active, or .tox/certify/bin first
# in PATH). The external deployment is stopped on success, failure and Ctrl-C. Not run in CI (each profile
# takes two certifications); docs/deployments.md gives the figures of the runs made here.
# bash reads this file as it runs: replace it (write a copy, then mv) rather than edit it during a run.
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: $0 PROFILE OUT_DIR [certify options...]" >&2
    echo "fix: give a profile the examples map (geo-replication, tenant-migration, cluster-migration, client-failover, policy-sync) and a new folder" >&2
    exit 64
fi
profile=$1
out=$2
shift 2
local_args=("$@")  # the certify options as given (the external run may narrow its --select)
here=$(cd "$(dirname "$0")" && pwd)
case "$profile" in
    geo-replication|tenant-migration) file="$here/external-local.yaml" ;;
    cluster-migration) file="$here/external-local-three.yaml" ;;
    client-failover) file="$here/external-local-failover.yaml" ;;
    policy-sync) file="$here/external-local-sync.yaml" ;;
    metadata-migration) file="$here/external-local-migration.yaml" ;;
    *)
        echo "$0: no example deployment maps the roles of profile '$profile'" >&2
        echo "fix: give geo-replication, tenant-migration, cluster-migration, client-failover, policy-sync or metadata-migration" >&2
        exit 64 ;;
esac
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

# the ports and broker settings the example files name
ports=(--port us-east.broker=16650 --port us-east.web=18080 --port us-west.broker=16651 --port us-west.web=18081)
external_options=()
local_options=()  # certify options of the local run alone
not_here=""  # a pytest -k expression of the scenarios the example's clusters cannot be configured for
case "$profile" in
    geo-replication|tenant-migration)
        pulsar-conformance up --name external-local --clusters us-east,us-west "${ports[@]}" > "$out/up.json" ;;
    cluster-migration)
        # blue (us-east) as test_cluster_migration.py's blue_green starts it: the migration task every
        # second (the default 0 never migrates a live topic) and automatic resource creation on
        pulsar-conformance up --name external-local --clusters us-east,us-west,eu-central "${ports[@]}" \
            --port eu-central.broker=16652 --port eu-central.web=18082 \
            --broker-config us-east:clusterMigrationCheckDurationSeconds=1 \
            --broker-config us-east:clusterMigrationAutoResourceCreation=true > "$out/up.json"
        # the cluster-level migrations run too, as they do locally: these clusters are thrown away at the end
        external_options=(--allow-irreversible)
        # the no-auto-create scenario's local blue starts with automatic resource creation off; this blue
        # has it on (as the other module's scenarios start it; one blue cannot have both, and the setting
        # is not dynamic): judged here, the spec's no-auto-create prediction would fail on a blue that
        # creates the subscriptions, a FAIL that is not Pulsar's. So it is left out here, and R09 is "not
        # judged" externally instead (docs/deployments.md, "External against local")
        not_here="not test_without_auto_resource_creation" ;;
    policy-sync)
        # the sync on among the three (the topic the example's metadata_sync: names) and each broker's wall
        # clock following a file that the example's clock_freeze/clock_offset commands write (fault clock)
        pulsar-conformance up --name external-local --clusters us-east,us-west,eu-central "${ports[@]}" \
            --port eu-central.broker=16652 --port eu-central.web=18082 --metadata-sync --clock-control > "$out/up.json"
        # the unpublishable-event scenario terminates alpha's sync topic, as it does locally: these clusters are
        # thrown away at the end
        external_options=(--allow-irreversible) ;;
    metadata-migration)
        # one standalone on a ZooKeeper with an Oxia server beside it, on the release the local run certifies
        # (PULSAR_VERSION, default 4.2.4: up's and the profile's defaults differ); their ports are free ports up
        # picks, written into a copy of the example (the file names placeholders)
        release=${PULSAR_VERSION:-4.2.4}
        pulsar-conformance up --name external-local --clusters us-east --metadata zk --oxia --pulsar-version "$release" \
            --port us-east.broker=16650 --port us-east.web=18080 --json > "$out/up.json"
        py="$(dirname "$(command -v pulsar-conformance)")/python"
        "$py" - "$out/up.json" "$file" "$out/deployment.yaml" <<'PYTHON'
import json
import re
import sys

up = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
text = re.sub(r"zookeeper: \S+", "zookeeper: " + up["services"]["zookeeper"]["url"].removeprefix("zk:"), text, count=1)
text = re.sub(r"target: oxia://\S+", "target: " + up["services"]["oxia"]["url"], text, count=1)
open(sys.argv[3], "w").write(text)
PYTHON
        file="$out/deployment.yaml"
        # a migration cannot be undone: these clusters are thrown away at the end
        external_options=(--allow-irreversible)
        local_options=(--pulsar-version "$release") ;;
    client-failover)
        # each cluster trusts its own token secret, as the local PIP121-R06 clusters do (on clusters
        # without authentication any client would pass R06). `up` has no option for it: the same
        # LocalDeployment.launch that `up` calls, with auth="token-per-cluster". It prints the token
        # files' paths, never a token; each token goes into the variable the file's token_env names.
        py="$(dirname "$(command -v pulsar-conformance)")/python"
        "$py" - > "$out/token-files.json" <<'PYTHON'
import json

from pulsar_conformance.fixtures.deploy.local import LocalDeployment

ports = {"us-east": (16650, 18080), "us-west": (16651, 18081), "eu-central": (16652, 18082)}
deployment = LocalDeployment.launch(list(ports), name="external-local", owned=False, auth="token-per-cluster",
                                    ports_wanted={n: {"broker": b, "web": w} for n, (b, w) in ports.items()})
print(json.dumps(deployment.record["auth"]["token_files"]))
PYTHON
        for cluster in us-east us-west eu-central; do
            token_file=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
                "$out/token-files.json" "$cluster")
            variable="EXTERNAL_LOCAL_$(echo "$cluster" | tr 'a-z-' 'A-Z_')_TOKEN"
            export "$variable=$(cat "$token_file")"
        done ;;
esac
pulsar-conformance plan --deployment "$file" --profile "$profile" "${external_options[@]}" > "$out/plan.txt" || true
# the certify options for the external run: the caller's, with not_here ANDed into their --select
external_args=("$@")
if [ -n "$not_here" ]; then
    external_args=()
    selected=0
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --select) external_args+=(--select "(${2:-}) and ($not_here)"); selected=1; shift; [ "$#" -gt 0 ] && shift ;;
            --select=*) external_args+=(--select "(${1#--select=}) and ($not_here)"); selected=1; shift ;;
            *) external_args+=("$1"); shift ;;
        esac
    done
    [ "$selected" = 1 ] || external_args+=(--select "$not_here")
fi
set -- "${local_args[@]}"
set +e
pulsar-conformance certify --deployment "$file" --profile "$profile" --out "$out/external" "${external_options[@]}" "${external_args[@]}"
echo "external: exit $?" | tee "$out/exits.txt"
set -e
cleanup

set +e
pulsar-conformance certify --profile "$profile" --out "$out/local" "${local_options[@]}" "$@"
echo "local: exit $?" | tee -a "$out/exits.txt"
pulsar-conformance compare "$out/local" "$out/external" > "$out/compare.txt"
echo "compare: exit $?" | tee -a "$out/exits.txt"
set -e
cat "$out/compare.txt"
