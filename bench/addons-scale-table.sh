#!/usr/bin/env bash
# The figures of AddonsScaleBenchmark runs side by side, one column a run (a Markdown table).
# Usage: bench/addons-scale-table.sh <run output>...
set -euo pipefail
awk '
  FNR == 1 { col++; name[col] = FILENAME; sub(/.*\//, "", name[col]); sub(/\.txt$/, "", name[col]) }
  function put(row, value) { if (!(row in seen)) { seen[row] = 1; rows[++nrows] = row } cell[row, col] = value }
  /^operator heap after GC:/ { put("heap after GC (used)", $5); rss = $8; sub(/^VmRSS:/, "", rss); put("RSS", rss) }
  /^requests in one period/ { put("all requests in the period", $NF) }
  /^  [a-z]+ [^ ]+.* [0-9]+$/ { row = $0; sub(/^  /, "", row); sub(/ +[0-9]+$/, "", row); put(row, $NF) }
  /^runs in the period:/ { put("runs in the period (claims)", $5 " " $6 " " $7) }
  /^offset into the period/ { put("offset into the period, s (min / median / max)", $7 " / " $9 " / " $11) }
  /^runs per tenth/ { line = $0; sub(/^runs per tenth of the period: /, "", line); sub(/, most.*/, "", line)
                      put("runs per tenth of the period", line); put("most runs in one second", $NF) }
  /^lag behind/ { put("lag behind the staggered time, s (median / p95 / max)", $8 " / " $10 " / " $12) }
  END {
    header = "| |"; rule = "|---|"
    for (c = 1; c <= col; c++) { header = header " " name[c] " |"; rule = rule "---|" }
    print header; print rule
    for (r = 1; r <= nrows; r++) {
      line = "| " rows[r] " |"
      for (c = 1; c <= col; c++) line = line " " ((rows[r], c) in cell ? cell[rows[r], c] : "0") " |"
      print line
    }
  }' "$@"
