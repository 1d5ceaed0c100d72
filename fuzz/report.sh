# Sourced by fuzz/run.sh and fuzz/python/run.sh. fuzz_report LOG STATUS WHAT
# prints the summary of a libFuzzer (or atheris) log: the harness's own
# "pyfuzz:" lines, executions, new units, peak RSS, the DONE line; for a
# non-zero STATUS also the log's tail, and returns 1.
fuzz_report() {
    local log=$1 status=$2 what=$3
    grep -E "^pyfuzz:" "$log" || true
    grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)" "$log" || true
    grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -n 1 || true
    if [[ $status -ne 0 ]]; then
        tail -n 60 "$log"
        echo "fuzz: $what found a failure (exit $status); see $log"
        return 1
    fi
}
