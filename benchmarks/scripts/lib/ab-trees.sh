# Sourced by the side-by-side (A/B) benchmark scripts.
#
# ab_setup TREE_A TREE_B: makes $work (a temporary directory removed on exit, with an empty
# $work/bin for stand-in commands), copies each built tree's launcher (cli/target/autoresume) to
# $work/a and $work/b, each with a class-data archive of its own (`--dump-cds`, as the packages
# make at install), and sets launcher[a] and launcher[b].
declare -A launcher
ab_setup() {
  local side tree
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # $work is fixed now
  trap "rm -rf -- '$work'" EXIT
  mkdir "$work/bin"
  for side in a b; do
    tree=$1; [[ "$side" == b ]] && tree=$2
    [[ -x "$tree/cli/target/autoresume/bin/autoresume" ]] || { echo "build $tree first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
    cp -r "$tree/cli/target/autoresume" "$work/$side"
    rm -f "$work/$side/lib/autoresume.jsa"
    "$work/$side/bin/autoresume" --dump-cds >/dev/null
    launcher[$side]="$work/$side/bin/autoresume"
  done
}
