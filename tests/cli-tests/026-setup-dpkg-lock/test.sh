#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh waits for a held package manager lock instead of failing.  The
# wait logic (wait_for_dpkg_lock) runs against a lock file of this test,
# locked with fcntl() the way apt and dpkg lock theirs, never against the
# system's dpkg: free at once; held, then released after 3 s (returns 0
# and names the holder); held longer than the timeout (returns 1 with a
# message).  A waiter's line in /proc/locks is not taken for the holder.
source "$TOP/tests/common.sh"

need_progs python3

lock=$TEST_TMP/lock-frontend
: > "$lock"

# hold SECONDS: lock $lock like dpkg does (F_SETLK write lock) for a while;
# prints nothing, the lock is taken when "locked" appears in hold.out
hold()
{
	python3 - "$lock" "$1" > hold.out <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
PY
	HOLDER=$!
	at_exit "kill $HOLDER 2>/dev/null"
	for _ in $(seq 50); do
		grep -q locked hold.out 2>/dev/null && return 0
		sleep 0.1
	done
	fail "could not take the test lock"
}

# waitlock STATUS TIMEOUT: run the function of setup.sh on the test lock,
# stderr in err.out; it must return STATUS
waitlock()
{
	local rc

	GHEE_SETUP_FUNCTIONS_ONLY=1 GHEE_LOCK_POLL=1 bash -c '
		source "$1" || exit 99
		wait_for_dpkg_lock "$2" "$3"' _ "$TOP/setup.sh" "$2" "$lock" 2> err.out
	rc=$?
	cat err.out
	[ $rc -eq "$1" ] || fail "wait_for_dpkg_lock $2 returned $rc, expected $1"
}

waitlock 0 5
[ -s err.out ] && { cat err.out; fail "waited although the lock is free"; }

hold 3
start=$(date +%s)
waitlock 0 30
took=$(($(date +%s) - start))
grep -q "waiting for the package manager, locked by pid $HOLDER" err.out ||
	fail "no message naming the holder $HOLDER"
[ $took -ge 2 ] || fail "returned after ${took}s while the lock was held 3 s"
[ $took -le 15 ] || fail "took ${took}s to notice the release"
wait "$HOLDER"

hold 20
waitlock 1 2
grep -q "still locked by pid $HOLDER after 2s" err.out || fail "no timeout message"
kill "$HOLDER"

# a waiter's line ("N: -> POSIX ...") is not the holder
ino=$(stat -c %i "$lock")
printf '1: -> POSIX  ADVISORY  WRITE 4242 fe:00:%s 0 EOF\n2: FLOCK  ADVISORY  WRITE 77 fe:00:123 0 EOF\n' "$ino" > locks
GHEE_PROC_LOCKS=$TEST_TMP/locks waitlock 0 2
printf '1: POSIX  ADVISORY  WRITE 4242 fe:00:%s 0 EOF\n' "$ino" > locks
GHEE_PROC_LOCKS=$TEST_TMP/locks waitlock 1 1
grep -q "pid 4242" err.out || fail "holder not found in a fake /proc/locks"
exit 0
