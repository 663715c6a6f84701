// A measured cost table changes what is recomputed. In the exp chain (see
// rematerialize-chain.mlir) a 5124 B budget leaves room for one activation
// besides what the backward holds: with equal costs the pass recomputes two
// exps once each; when the table says a1 (loc("a1")) costs 10^6, a1 is kept
// and only the cheap ones are recomputed, even if more often.
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=5124 report=%t.plain.json alignment=1" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.json
// PLAIN:      "decision": "recomputed",
// PLAIN-NEXT: "loc": "a1",
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=5124 cost-table=%S/Inputs/expensive-a1.json report=%t.table.json alignment=1" -o /dev/null
// RUN: FileCheck %s --check-prefix=TABLE < %t.table.json
// The table's time unit replaces FLOPs: a1 alone is 10^6.
// TABLE:      "time_before": 100{{[0-9]}}{{[0-9]}}{{[0-9]}}{{[0-9]}},
// TABLE:      "decision": "kept",
// TABLE-NEXT: "loc": "a1",
// TABLE:      "decision": "recomputed",
// TABLE-NEXT: "loc": "a2",
//
// A table that cannot be read is an error naming the file.
// RUN: not remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=5124 cost-table=%S/Inputs/missing.json alignment=1" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read cost table '{{.*}}missing.json'
// RUN: echo '{"ops": {"a1": {"bytes": 4}}}' > %t.bad.json
// RUN: not remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=5124 cost-table=%t.bad.json alignment=1" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: {{.*}}bad.json: entry 'a1' needs a non-negative "time"
