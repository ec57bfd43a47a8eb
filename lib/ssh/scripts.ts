// The fixed shell scripts the executor sends. Data is passed only as quoted positional parameters;
// the texts are pinned by golden tests (scripts.test.ts) so any change shows up in review.

/**
 * Runs its arguments (the command's argv) in a new session so cancellation can stop the whole process
 * tree: on TERM/HUP/INT the group gets TERM, then KILL after ~1 s. The wrapper announces its pid on the
 * first stderr line (the executor strips it) because sshd refuses "signal" requests for root logins
 * (no privilege-separated child); cancelling then sends `kill -TERM PID` over a second channel.
 * The trap is set before anything starts and reads `$!`, so a stop at any moment finds the command.
 * Until the command has called setsid its group does not exist: it is then told by pid, every 0.1 s
 * until it is gone or has its group — a TERM that lands between the fork and the exec is lost (the
 * forked shell still holds the trap), and the command would start anyway.
 * stdin is handed over explicitly because a background job's stdin would otherwise be /dev/null.
 * The argv is passed as positional parameters, so it is quoted once and costs no extra shell.
 */
export const RUN_WRAPPER = `stop() {
  p=$!
  [ -n "$p" ] || exit 143
  i=0
  while [ "$i" -lt 10 ]; do
    kill -TERM "-$p" 2>/dev/null && break
    kill -TERM "$p" 2>/dev/null || break
    sleep 0.1; i=$((i + 1))
  done
  i=0
  while [ "$i" -lt 10 ] && kill -0 "-$p" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "-$p" 2>/dev/null
  exit 143
}
trap stop TERM HUP INT
echo "bootdeck-pid $$" >&2
exec 3<&0
setsid "$@" <&3 3<&- &
exec 3<&-
wait "$!"`;

/**
 * Upload probe: for each target path "$@", reports whether it is a regular file (line of y/n flags),
 * then, for the existing ones, one line of "mode owner:group" each and the NUL-terminated sha256sum
 * records. Two processes in total whatever the file count.
 */
export const UPLOAD_PROBE = `n=$#
for f; do
  if [ -f "$f" ]; then set -- "$@" "$f"; printf y; else printf n; fi
done
echo
shift "$n"
if [ "$#" -gt 0 ]; then
  stat --printf '%a %U:%G\\n' -- "$@"
  sha256sum -z -- "$@"
fi`;

/**
 * Upload apply: reads one tar stream on stdin holding the new contents in a fresh staging directory
 * inside each target directory (same filesystem, so renames are atomic; mode and owner in the tar
 * headers), verifies every SHA-256, checks mode and owner, flushes them to disk, then moves each staging
 * directory's files over their targets with one `mv -t` per directory (rename(2) per file, no process
 * per file), removes the staging directories and flushes again so the renames are durable.
 * Flushing uses syncfs (`sync -f`) per target directory: measured ~10x faster than fsync per file for
 * 55 files (one journal commit instead of 55), at the price of also flushing other dirty data on that
 * filesystem, which on a host being bootstrapped is little.
 * Arguments: SUMS EXPECTED_STAT STAGE_NAME ND NT, then ND directories, NT temporaries.
 * Exit 90: tar failed; 91: checksum mismatch; 92: mode/owner mismatch (owner missing on the host).
 */
export const UPLOAD_APPLY = `set -eu
sums=$1; want=$2; stage=$3; nd=$4; nt=$5; shift 5
on_dirs() { c=$1; shift; n=$#; i=0
  for a; do i=$((i + 1)); if [ "$i" -le "$nd" ]; then set -- "$@" "$a"; fi; done
  shift "$n"; "$c" "$@"; }
on_temps() { c=$1; shift; shift "$nd"; "$c" "$@"; }
mkstages() { for d; do mkdir -p -m 700 -- "$d/$stage"; done; }
rmstages() { for d; do rm -rf -- "$d/$stage"; done; }
movein() { for d; do find "$d/$stage" -mindepth 1 -maxdepth 1 -exec mv -f -t "$d" -- {} +; rmdir -- "$d/$stage"; done; }
syncfs_all() { sync -f -- "$@"; }
stat_all() { stat --printf '%a %U:%G\\n' -- "$@"; }
fail() { on_dirs rmstages "$@"; echo "bootdeck-upload: $msg" >&2; exit "$code"; }
on_dirs mkstages "$@"
if ! tar -x -f - -C / --same-owner --same-permissions; then msg="tar extraction failed"; code=90; fail "$@"; fi
if ! printf '%s' "$sums" | sha256sum -c --quiet --strict - >&2; then msg="checksum mismatch after transfer"; code=91; fail "$@"; fi
got=$(on_temps stat_all "$@")
if [ "$got" != "$want" ]; then msg="mode/owner not as requested: wanted [$want] got [$got] (does the owner exist on this host?)"; code=92; fail "$@"; fi
on_dirs syncfs_all "$@"
on_dirs movein "$@"
on_dirs syncfs_all "$@"
echo "bootdeck-upload: wrote $nt"`;
