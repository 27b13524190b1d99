#!/usr/bin/env bash
# The release table of docs/releases.md (issue 33): every live profile on every Pulsar release that runs on this
# machine, by one suite commit, then the table generated from the bundles. A documented command, not CI: one run
# of every profile on thirteen releases takes about five hours on the 2-core machine.
#
#   docs/examples/release-sweep.sh OUT_DIR [PROFILE...]      (default: every live profile)
#   RELEASES="4.0.7 4.2.4" REPEAT=3 docs/examples/release-sweep.sh OUT_DIR cluster-migration
#
# Each profile x release is one `certify` into OUT_DIR/<profile>/pulsar-<release>/ (with REPEAT=N, a --repeat N
# folder), live scenarios only (the spec checks do not depend on the release). A folder that already holds a
# summary.json is kept, so an interrupted sweep goes on where it stopped (the cell Ctrl-C cut is removed, to run
# again: the table refuses an interrupted bundle); the suite commit is written to
# OUT_DIR/suite-commit and a sweep resumed at another commit stops (a table's columns must share one commit to
# call a difference a release difference). At the end:
#   pulsar-conformance releases OUT_DIR/<profile>/pulsar-<release>... --out OUT_DIR/table
# Runs from the checkout with pulsar-conformance on PATH (the venv active, or .tox/certify/bin first in PATH).
set -uo pipefail

if [ "$#" -lt 1 ]; then
    echo "usage: $0 OUT_DIR [PROFILE...]" >&2
    echo "fix: name a folder for the bundles (a new one, or the one of a sweep to resume)" >&2
    exit 64
fi
out=$1
shift
profiles=("$@")
[ "${#profiles[@]}" -gt 0 ] || profiles=(geo-replication policy-sync tenant-migration cluster-migration client-failover metadata-migration)
# the releases whose whole classpath resolves and starts here (pulsar-facts §1; docs/deployments.md, "Releases that run here")
releases=${RELEASES:-"3.0.0 3.0.2 3.0.7 3.1.0 3.2.0 3.2.2 3.2.3 3.3.2 4.0.0 4.0.1 4.0.7 4.2.4 5.0.0-M1"}
repeat=${REPEAT:-1}
command -v pulsar-conformance >/dev/null || {
    echo "$0: pulsar-conformance is not on PATH" >&2
    echo "fix: activate the checkout's venv, or put .tox/certify/bin first in PATH" >&2
    exit 64
}
commit=$(git -C "$(dirname "$0")" rev-parse HEAD 2>/dev/null || echo unknown)
mkdir -p "$out"
if [ -f "$out/suite-commit" ] && [ "$(cat "$out/suite-commit")" != "$commit" ]; then
    echo "$0: $out was swept by suite commit $(cat "$out/suite-commit"), this checkout is $commit" >&2
    echo "fix: check that commit out to resume, or sweep into a new folder" >&2
    exit 64
fi
echo "$commit" > "$out/suite-commit"

for profile in "${profiles[@]}"; do
    options=()
    # PIP-188 through both clients: the Python client's scenarios and the Java client's of the release
    [ "$profile" = cluster-migration ] && options=(--migration-client all)
    for release in $releases; do
        cell="$out/$profile/pulsar-$release"
        [ -f "$cell/summary.json" ] && continue
        rm -rf "$cell"
        mkdir -p "$out/$profile"
        began=$(date +%s)
        repeat_options=()
        [ "$repeat" -gt 1 ] && repeat_options=(--repeat "$repeat")
        pulsar-conformance certify --profile "$profile" --pulsar-version "$release" "${options[@]}" "${repeat_options[@]}" \
            --select "not test_spec_check and not test_mutants_are_killed" --out "$cell" > "$out/$profile-$release.log" 2>&1
        code=$?
        echo "$(date -u +%H:%M:%S) $profile $release: exit $code, $(( $(date +%s) - began )) s" | tee -a "$out/progress.log"
        # Ctrl-C: stop the sweep, keep what is done; the cut cell's bundle says only "interrupted" (the table
        # refuses it), so it goes and a resumed sweep runs it again
        [ "$code" = 130 ] && { rm -rf "$cell"; exit 130; }
    done
done
# the cells that hold a bundle (a release refused before it started, exit 64, holds none: its log says why)
cells=()
for cell in "$out"/*/pulsar-*; do [ -f "$cell/summary.json" ] && cells+=("$cell"); done
[ "${#cells[@]}" -gt 0 ] || { echo "$0: no bundle in $out" >&2; exit 2; }
rm -rf "$out/table"
pulsar-conformance releases "${cells[@]}" --out "$out/table"
