/**
 * @module sandbox/verify
 * The check that runs inside the new mount namespace before the command: for every mount the plan made, the
 * topmost mount at exactly that path (the kernel's own `/proc/self/mountinfo`, which names real folders, never
 * links) is there, read-only where planned, and holds the very file the survey opened (`-ef`: same device and
 * inode as the descriptor the survey passed; the survey plans no mount behind a folder the sandbox may not
 * enter, so a path the check cannot look at stops the command too). bwrap resolves sources and destinations by
 * path, so a folder swapped for a link meanwhile could put a mount somewhere else, or another file at its
 * place: each planned mount needs a mount of its own file at its own path, so the check then stops. It
 * also closes every descriptor above 2 (the survey's — they reach the host's writable mounts — and any that
 * toolgate's own parent leaked), then runs the command in the same bash.
 *
 * Cheap by design: bash builtins only (mountinfo read whole with `mapfile`, one `-ef` per mount), no program started,
 * no fork.
 */

/** A mount the check expects: raw path, read-only or not, and what must be there. */
export interface Expected {
  path: string;
  writable: boolean;
  /** `/proc/self/fd/N` or a system path (`/dev/null`) naming the same file, or `tmpfs` for a fresh one. */
  ref: string;
}

/** The exit status of a sandbox whose mounts are not as planned (bash keeps 126 and 127 for its own). */
export const CHECK_FAILED_STATUS = 125;

/** What the check prints first when it stops a command. */
export const CHECK_FAILED_PREFIX = "toolgate: the sandbox is not as planned";

/**
 * The script bash runs as `bash -c SCRIPT <$0> <n> (<mode> <escaped path> <ref>)×n --` followed by the command
 * (`<shell> -c <command>`). The check is a function with local variables, so the command starts with the
 * variables it was given; when `<shell>` is this very bash the command runs in it (`eval`, with `$1`… empty as
 * under `bash -c`), else it is started with `exec`.
 * The mount table is read whole with `mapfile` (`read` in a loop reads a seekable file a line at a time, seeking
 * back each time, and the kernel renders the table again for each read: ~10 ms with 60 mounts) and each line is
 * split with globbing off (`local -` gives the command its options back); spaces inside a field are written
 * `\\040` by the kernel, so a line splits exactly into its fields.
 */
export const CHECK_SCRIPT = `__toolgate_check() {
  local LC_ALL=C IFS=$' \\t\\n' opts entry mode path key ref fs n=$1 bs='\\'
  local -
  local -a lines fields
  local -A top
  shift
  mapfile -t lines < /proc/self/mountinfo || { __toolgate_why="the mount table cannot be read"; return 1; }
  set -f
  for entry in "\${lines[@]}"; do fields=($entry) top[\${fields[4]}]="\${fields[5]} \${entry#* - }"; done
  while (( n-- > 0 )); do
    (( $# >= 3 )) || { __toolgate_why="its list is incomplete"; return 1; }
    mode=$1 ref=$3
    [[ $mode == any || $mode == ro ]] || { __toolgate_why="its list is malformed"; return 1; }
    printf -v path '%b' "$2"
    shift 3
    key=\${path//"$bs"/"\${bs}134"} key=\${key//" "/"\${bs}040"}
    key=\${key//$'\\t'/"\${bs}011"} key=\${key//$'\\n'/"\${bs}012"}
    entry=\${top[$key]}
    [[ -n $entry ]] || { __toolgate_why="nothing is mounted at $path"; return 1; }
    opts=",\${entry%% *}," fs=\${entry#* }
    fs=\${fs%% *}
    [[ $mode == any || $opts == *",$mode,"* ]] || { __toolgate_why="$path is not read-only"; return 1; }
    if [[ $ref == tmpfs ]]; then
      [[ $fs == tmpfs ]] || { __toolgate_why="$path is not an empty folder"; return 1; }
    elif ! [[ $path -ef $ref ]]; then
      __toolgate_why="$path is not what was checked"
      return 1
    fi
  done
  [[ $1 == -- ]] || { __toolgate_why="its list is too long"; return 1; }
}
__toolgate_check "$@" || {
  printf '%s: %s; the command was not run\\n' '${CHECK_FAILED_PREFIX}' "$__toolgate_why" >&2
  exit ${CHECK_FAILED_STATUS}
}
shift $(( $1 * 3 + 2 ))
unset -f __toolgate_check
for __toolgate_fd in /proc/self/fd/*; do
  __toolgate_fd=\${__toolgate_fd##*/}
  [[ -h /proc/self/fd/$__toolgate_fd ]] && (( __toolgate_fd > 2 )) && exec {__toolgate_fd}>&-
done
unset __toolgate_fd
if [[ $1 == "$BASH" && $2 == -c && $# == 3 ]]; then
  __toolgate_command=$3
  set --
  eval "unset __toolgate_command; $__toolgate_command"
else
  exec "$@"
fi`;

/** Bytes kept as they are in the check's arguments; any other byte is written `\xHH` (argv stays ASCII). */
const PLAIN = /^[A-Za-z0-9/._+,=@:-]$/;

/** A raw path as `printf %b` reads it back, byte for byte. */
export function escapeForCheck(raw: string): string {
  let out = "";
  for (const char of raw) {
    out += PLAIN.test(char) ? char : `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
  }
  return out;
}

/** The check's arguments after `$0`: the count, then mode, escaped path and reference per mount, then `--`. */
export function checkArgs(expected: readonly Expected[]): string[] {
  const args = [String(expected.length)];
  for (const e of expected) {
    // A writable mount is not checked for being writable (a read-only file system stays so): only what is there.
    args.push(e.writable ? "any" : "ro", escapeForCheck(e.path), e.ref);
  }
  args.push("--");
  return args;
}
