// Running the pass again never recomputes a recomputation (existing
// remat.recompute ops are planned as single, pinned nodes), and CSE and
// canonicalization afterwards leave every recomputation and the peak as
// they were. Uses the exp chain of rematerialize-chain.mlir.
//
// Same budget twice: the second run finds the function within budget.
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=5124 alignment=1" -remat-rematerialize="budget=5124 alignment=1" --remarks-filter=remat 2>&1 -o /dev/null | FileCheck %s --check-prefix=FITS
// FITS: Rematerialized
// FITS: peak 5124 B already within the budget of 5124 B; nothing to do
//
// A smaller budget the second time: new recomputations, none nested in an
// old one, and the budget holds. The first run's recomputation of a2 (from
// a1, kept) is pinned, so 4100 B (which needs a1 dropped) is out of reach
// for the lower-set strategies (they name 5124 B); auto's exact MILP
// recomputes around the pinned region (a1 more than once) and meets it.
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=6148 alignment=1" -remat-rematerialize="budget=5124 alignment=1" | FileCheck %s --check-prefix=NESTED --strict-whitespace
// NESTED-NOT: {{^     +}}%{{.*}} = remat.recompute
// NESTED:     return
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=6148 alignment=1" -remat-rematerialize="budget=5124 alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=5124 alignment=1"
// RUN: not remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=6148 alignment=1" -remat-rematerialize="budget=4100 strategy=lowerset-exact alignment=1" 2>&1 | FileCheck %s --check-prefix=PINNED
// PINNED: error: cannot fit @chain into 4100 B {{.*}}; the smallest budget it can meet is 5124 B
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=6148 alignment=1" -remat-rematerialize="budget=4100 alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=4100 alignment=1"
//
// CSE and canonicalization after the pass: as many recomputations, same
// peak.
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=4100 alignment=1" | FileCheck %s --check-prefix=COUNT
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=4100 alignment=1" -cse -canonicalize -cse | FileCheck %s --check-prefix=COUNT
// COUNT-COUNT-3: remat.recompute
// RUN: remat-opt %S/Inputs/named-chain.mlir -remat-rematerialize="budget=4100 alignment=1" -cse -canonicalize | remat-opt -remat-prepare -remat-test-timeline="quiet max-peak=4100 alignment=1"
