# Sourced by tools/test.sh, tools/fuzz.sh and .ci/run: times the stages of a
# run and prints them as one table at its end.
#
#   stage NAME COMMAND...   runs COMMAND; appends "NAME<tab>seconds<tab>status"
#                           to $SPEEDQA_STAGE_TIMES and returns COMMAND's status
#   stage_table             prints the stages recorded so far, and their sum
#
# The outermost script sets SPEEDQA_STAGE_TIMES (stages_begin) and prints the
# table (stages_end, also when a stage failed); scripts it runs add to the
# same file, so that .ci/run's table holds test.sh's and fuzz.sh's stages.

# Starts the record unless an outer script did; returns 0 if this one owns it.
stages_begin() {
  if [ -n "${SPEEDQA_STAGE_TIMES:-}" ]; then
    return 1
  fi
  SPEEDQA_STAGE_TIMES=$(mktemp)
  export SPEEDQA_STAGE_TIMES
  return 0
}

stage() {
  local name=$1 start end rc=0
  shift
  start=$EPOCHREALTIME
  "$@" || rc=$?
  end=$EPOCHREALTIME
  if [ -n "${SPEEDQA_STAGE_TIMES:-}" ]; then
    printf '%s\t%s\t%s\n' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" "$rc" \
      >>"$SPEEDQA_STAGE_TIMES"
  fi
  return "$rc"
}

stage_table() {
  [ -s "${SPEEDQA_STAGE_TIMES:-}" ] || return 0
  awk -F '\t' '
    { name[NR] = $1; secs[NR] = $2; rc[NR] = $3; total += $2 }
    END {
      print ""
      print "stage times"
      printf "| %-28s | %9s | %7s |\n", "stage", "m:ss", "status"
      printf "|%s|%s|%s|\n", "------------------------------", "-----------", "---------"
      for (i = 1; i <= NR; i++)
        printf "| %-28s | %6d:%02d | %7s |\n", name[i], int(secs[i] / 60), int(secs[i]) % 60, rc[i] == 0 ? "ok" : "FAILED"
      printf "| %-28s | %6d:%02d | %7s |\n", "total", int(total / 60), int(total) % 60, ""
    }' "$SPEEDQA_STAGE_TIMES"
}

# Prints the table and removes the record, if this script began it ($1: what
# stages_begin returned).
stages_end() {
  if [ "$1" = 0 ]; then
    stage_table
    rm -f "$SPEEDQA_STAGE_TIMES"
  fi
}
