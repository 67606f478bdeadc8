#!/bin/sh
# The fleet playbook (tests/fleet/playbook.yml, docs/fleet.md) against
# localhost: ansible-playbook -c local runs a short syscall measurement
# with the build's primbench, fetches its JSON, and `report --by-machine`
# must make one machine of it. Skipped (77) without ansible-playbook
# (Debian's ansible: scripts/deps.sh fleet).
#   tests/fleet/playbook.sh PRIMBENCH
set -u
pb=$1
case $pb in */*) pb=$(cd "$(dirname "$pb")" && pwd)/$(basename "$pb") ;; esac
if ! command -v ansible-playbook >/dev/null 2>&1; then
	echo "skipped: ansible-playbook not installed (scripts/deps.sh fleet)"
	exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
# ansible's own files in the temporary directory, no colour, no cows
export ANSIBLE_HOME="$tmp/ansible" ANSIBLE_LOCAL_TEMP="$tmp/ansible/tmp" \
	ANSIBLE_REMOTE_TEMP="$tmp/ansible/remote" ANSIBLE_NOCOLOR=1 ANSIBLE_NOCOWS=1 \
	ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=auto_silent
export PRIMBENCH_POLICY_FILE= XDG_CONFIG_HOME=/nonexistent-primbench-fleet
fail() {
	echo "FAIL: $*"
	exit 1
}
cd "$tmp" || exit 1
# 1: the build's primbench on the host's PATH, absolute directories
ansible-playbook -i localhost, -c local "$here/playbook.yml" \
	-e "primbench_bin=$pb" -e "primbench_dir=$tmp/host" -e "results_dir=$tmp/results" \
	-e "primbench_args='syscall null --budget 0.05 -q'" >"$tmp/log" 2>&1 ||
	{ sed 's/^/    /' "$tmp/log"; fail "ansible-playbook exited $?"; }
set -- "$tmp"/results/localhost/primbench-*.json
[ -s "$1" ] || fail "no results/localhost/primbench-RUN.json fetched"
# 2: as docs/fleet.md says, from another directory: primbench_copy
# relative to it, the default results_dir (results/ there); a second run
# is kept beside the first
mkdir -p "$tmp/work/bin" && cp "$pb" "$tmp/work/bin/primbench" && cd "$tmp/work" || exit 1
# Under an emulator (the arm64 tests) $pb is a launcher that reads the
# command line it runs from NAME.argv beside it: the copy on the "host"
# needs that file beside it too (the playbook copies the binary only).
if [ -f "$pb.argv" ]; then
	mkdir -p "$tmp/host2" && cp "$pb.argv" "$tmp/host2/primbench.argv" || exit 1
fi
sleep 1 # the run's name is the fetch's UTC second
ansible-playbook -i localhost, -c local "$here/playbook.yml" \
	-e primbench_copy=bin/primbench -e "primbench_dir=$tmp/host2" \
	-e "primbench_args='syscall null --budget 0.05 -q'" >"$tmp/log" 2>&1 ||
	{ sed 's/^/    /' "$tmp/log"; fail "ansible-playbook (primbench_copy, defaults) exited $?"; }
[ -x "$tmp/host2/primbench" ] || fail "primbench_copy=bin/primbench: not copied to the host"
set -- results/localhost/primbench-*.json
[ -s "$1" ] || fail "the default results_dir: no results/localhost/primbench-RUN.json in $PWD"
cp "$1" "$tmp/results/localhost/" || exit 1
set -- "$tmp"/results/localhost/primbench-*.json
[ $# -eq 2 ] || fail "two runs: $# files in results/localhost"
"$pb" report --by-machine --figures syscall/null "$tmp"/results/*/*.json >"$tmp/table" 2>&1 ||
	{ cat "$tmp/table"; fail "report --by-machine exited $?"; }
grep -q '^  m1  ' "$tmp/table" || fail "no machine m1 in: $(cat "$tmp/table")"
grep -q '^  m2  ' "$tmp/table" && fail "two machines from one host"
grep -q '2 runs' "$tmp/table" || fail "not two runs of m1: $(cat "$tmp/table")"
grep -Eq '^m1 +[0-9]' "$tmp/table" || fail "no null figure for m1: $(cat "$tmp/table")"
echo "ok: playbook ran twice (absolute paths; primbench_copy and the default results_dir), fetched a file per run, report --by-machine made one machine of two runs"
