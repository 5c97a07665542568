#!/bin/bash
# mkfs --rootdir - killed while it reads the archive (SIGINT, SIGTERM,
# SIGKILL): the spool holds file data then (seen through the process's
# descriptors: nameless files, data in them), and after the kill TMPDIR is
# empty.  A run that is not killed leaves it empty too and makes a clean
# image of the archive.
source "$TOP/tests/common.sh"
source "$TOP/tests/mkfs-tests/mkfs-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-lib.sh"
source "$TOP/tests/mkfs-tests/rootdir-tar-lib.sh"

need_ghee
need_tar_input

spool=$TEST_TMP/spool
mkdir "$spool" "$TEST_TMP/src"
for i in 1 2 3 4 5; do
	head -c $((i * 400000)) /dev/urandom > "$TEST_TMP/src/file$i"
done
tar -C "$TEST_TMP/src" -cf "$TEST_TMP/a.tar" . || fail "tar failed"
img=$TEST_TMP/img

# spool_bytes PID: bytes in the nameless spool files PID holds open in $spool
spool_bytes()
{
	local fd target total=0

	for fd in /proc/"$1"/fd/*; do
		target=$(readlink "$fd") || continue
		[[ $target == "$spool/"* ]] || continue
		[[ $target == *"(deleted)" ]] || fail "spool file with a name: $target"
		total=$((total + $(stat -L -c %s "$fd")))
	done
	echo "$total"
}

for sig in INT TERM KILL; do
	rm -f "$TEST_TMP/fifo"
	mkfifo "$TEST_TMP/fifo"
	new_image "$img" 256M
	# (env: a background job of a script would otherwise ignore SIGINT)
	TMPDIR=$spool env --default-signal=INT,TERM "$GHEE" mkfs -q -f --rootdir - "$img" \
		< "$TEST_TMP/fifo" 2>/dev/null &
	pid=$!
	# all but the end of the last file: the reader waits for more
	exec 7> "$TEST_TMP/fifo"
	head -c $(($(stat -c %s "$TEST_TMP/a.tar") - 100000)) "$TEST_TMP/a.tar" >&7
	bytes=0
	for _ in $(seq 100); do
		bytes=$(spool_bytes "$pid")
		[ "$bytes" -ge 5000000 ] && break
		sleep 0.1
	done
	[ "$bytes" -ge 5000000 ] || { kill -KILL "$pid"; exec 7>&-; fail "SIG$sig: the spool did not get the data (has $bytes bytes)"; }
	kill -"$sig" "$pid"
	wait "$pid" && fail "mkfs killed with SIG$sig exited 0"
	exec 7>&-
	left=$(find "$spool" -mindepth 1 | head -3)
	[ -z "$left" ] || fail "SIG$sig: left behind in TMPDIR: $left"
	[ "$(head -c 128K "$img" | tr -d '\0' | wc -c)" = 0 ] || fail "SIG$sig: the target got something"
done

new_image "$img" 256M
TMPDIR=$spool ghee_mkfs --rootdir - "$img" < "$TEST_TMP/a.tar"
[ -z "$(find "$spool" -mindepth 1 | head -3)" ] || fail "a finished run left files in TMPDIR"
check_all "$img"
exit 0
