// Written by hand from gru.mlir, as a frontend that stacks a step's
// values side by side writes it: h, z and c in one tensor<16x8x16x3xf32>
// (time first, the part axis last: h at 2, z at 0, c at 1), written in
// three parts per iteration, each into the one before; the backward reads
// each part's row. The same math and arguments as gru.mlir (its harness).
//
// GRU-like cell, T=16 steps, batch 8, width 16: z = sigmoid(h wz), c = tanh(h wh),
// h' = (1 - z) h + z c, loss = sum(h_T); stacks h, z and c.
// Results: loss, dloss/dwz, dloss/dwh, dloss/dh0.
// Form: loop (forward scf.for stacking per-iteration values, backward scf.for reading them in reverse).
// Arguments: %h0 tensor<8x16xf32>, %wz tensor<16x16xf32>, %wh tensor<16x16xf32>
#id2 = affine_map<(i, j) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>
#red2 = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>

func.func @gru(%h0: tensor<8x16xf32>, %wz: tensor<16x16xf32>, %wh: tensor<16x16xf32>)
    -> (tensor<f32> {remat.loss}, tensor<16x16xf32>, tensor<16x16xf32>, tensor<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cT = arith.constant 16 : index
  %fill_zero = arith.constant 0.0 : f32
  %fill_one = arith.constant 1.0 : f32
  %cTm1 = arith.constant 15 : index
  // forward: z = sigmoid(h wz), c = tanh(h wh), h' = (1 - z) h + z c
  %stack_e = tensor.empty() : tensor<16x8x16x3xf32>
  %fwd:2 = scf.for %i = %c0 to %cT step %c1 iter_args(%h = %h0, %st = %stack_e) -> (tensor<8x16xf32>, tensor<16x8x16x3xf32>) {
    %st_h_next = tensor.insert_slice %h into %st[%i, 0, 0, 2] [1, 8, 16, 1] [1, 1, 1, 1] : tensor<8x16xf32> into tensor<16x8x16x3xf32>
    %pz_e = tensor.empty() : tensor<8x16xf32>
    %pz_z = linalg.fill ins(%fill_zero : f32) outs(%pz_e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %pz = linalg.matmul ins(%h, %wz : tensor<8x16xf32>, tensor<16x16xf32>) outs(%pz_z : tensor<8x16xf32>) -> tensor<8x16xf32>
    %z_e = tensor.empty() : tensor<8x16xf32>
    %z = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%pz : tensor<8x16xf32>) outs(%z_e : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %neg = arith.negf %in : f32
      %ex = math.exp %neg : f32
      %den = arith.addf %one, %ex : f32
      %r = arith.divf %one, %den : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    %pc_e = tensor.empty() : tensor<8x16xf32>
    %pc_z = linalg.fill ins(%fill_zero : f32) outs(%pc_e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %pc = linalg.matmul ins(%h, %wh : tensor<8x16xf32>, tensor<16x16xf32>) outs(%pc_z : tensor<8x16xf32>) -> tensor<8x16xf32>
    %c_e = tensor.empty() : tensor<8x16xf32>
    %c = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%pc : tensor<8x16xf32>) outs(%c_e : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.tanh %in : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    %st_z_next = tensor.insert_slice %z into %st_h_next[%i, 0, 0, 0] [1, 8, 16, 1] [1, 1, 1, 1] : tensor<8x16xf32> into tensor<16x8x16x3xf32>
    %st_c_next = tensor.insert_slice %c into %st_z_next[%i, 0, 0, 1] [1, 8, 16, 1] [1, 1, 1, 1] : tensor<8x16xf32> into tensor<16x8x16x3xf32>
    %hn_e = tensor.empty() : tensor<8x16xf32>
    %hn = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%h, %z, %c : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%hn_e : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %in3: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %k = arith.subf %one, %in2 : f32
      %a = arith.mulf %k, %in : f32
      %b = arith.mulf %in2, %in3 : f32
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    scf.yield %hn, %st_c_next : tensor<8x16xf32>, tensor<16x8x16x3xf32>
  }
  %loss_e = tensor.empty() : tensor<f32>
  %loss_z = linalg.fill ins(%fill_zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["reduction", "reduction"]}
      ins(%fwd#0 : tensor<8x16xf32>) outs(%loss_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // backward: dloss/dh_T = 1
  %dT_e = tensor.empty() : tensor<8x16xf32>
  %dT_z = linalg.fill ins(%fill_one : f32) outs(%dT_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %gwz0_e = tensor.empty() : tensor<16x16xf32>
  %gwz0_z = linalg.fill ins(%fill_zero : f32) outs(%gwz0_e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %gwh0_e = tensor.empty() : tensor<16x16xf32>
  %gwh0_z = linalg.fill ins(%fill_zero : f32) outs(%gwh0_e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %bwd:3 = scf.for %j = %c0 to %cT step %c1 iter_args(%d = %dT_z, %gwz = %gwz0_z, %gwh = %gwh0_z) -> (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
    %i_2 = arith.subi %cTm1, %j : index
    %h_i = tensor.extract_slice %fwd#1[%i_2, 0, 0, 2] [1, 8, 16, 1] [1, 1, 1, 1] : tensor<16x8x16x3xf32> to tensor<8x16xf32>
    %z_i = tensor.extract_slice %fwd#1[%i_2, 0, 0, 0] [1, 8, 16, 1] [1, 1, 1, 1] : tensor<16x8x16x3xf32> to tensor<8x16xf32>
    %c_i = tensor.extract_slice %fwd#1[%i_2, 0, 0, 1] [1, 8, 16, 1] [1, 1, 1, 1] : tensor<16x8x16x3xf32> to tensor<8x16xf32>
    %dpz_e = tensor.empty() : tensor<8x16xf32>
    %dpz = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%d, %z_i, %c_i, %h_i : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%dpz_e : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %in3: f32, %in4: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %ch = arith.subf %in3, %in4 : f32
      %a = arith.mulf %in, %ch : f32
      %k = arith.subf %one, %in2 : f32
      %zk = arith.mulf %in2, %k : f32
      %r = arith.mulf %a, %zk : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    %dpc_e = tensor.empty() : tensor<8x16xf32>
    %dpc = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%d, %z_i, %c_i : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%dpc_e : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %in3: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %c2 = arith.mulf %in3, %in3 : f32
      %k = arith.subf %one, %c2 : f32
      %a = arith.mulf %in, %in2 : f32
      %r = arith.mulf %a, %k : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    %gwzc_e = tensor.empty() : tensor<16x16xf32>
    %gwzc_z = linalg.fill ins(%fill_zero : f32) outs(%gwzc_e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %gwzc = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%h_i, %dpz : tensor<8x16xf32>, tensor<8x16xf32>) outs(%gwzc_z : tensor<16x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    %gwz_next_e = tensor.empty() : tensor<16x16xf32>
    %gwz_next = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%gwz, %gwzc : tensor<16x16xf32>, tensor<16x16xf32>) outs(%gwz_next_e : tensor<16x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %r = arith.addf %in, %in2 : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    %gwhc_e = tensor.empty() : tensor<16x16xf32>
    %gwhc_z = linalg.fill ins(%fill_zero : f32) outs(%gwhc_e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %gwhc = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%h_i, %dpc : tensor<8x16xf32>, tensor<8x16xf32>) outs(%gwhc_z : tensor<16x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    %gwh_next_e = tensor.empty() : tensor<16x16xf32>
    %gwh_next = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%gwh, %gwhc : tensor<16x16xf32>, tensor<16x16xf32>) outs(%gwh_next_e : tensor<16x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %r = arith.addf %in, %in2 : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    %dhz_e = tensor.empty() : tensor<8x16xf32>
    %dhz_z = linalg.fill ins(%fill_zero : f32) outs(%dhz_e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %dhz = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%dpz, %wz : tensor<8x16xf32>, tensor<16x16xf32>) outs(%dhz_z : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    %dhc_e = tensor.empty() : tensor<8x16xf32>
    %dhc_z = linalg.fill ins(%fill_zero : f32) outs(%dhc_e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %dhc = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%dpc, %wh : tensor<8x16xf32>, tensor<16x16xf32>) outs(%dhc_z : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    %d_next_e = tensor.empty() : tensor<8x16xf32>
    %d_next = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%d, %z_i, %dhz, %dhc : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%d_next_e : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in2: f32, %in3: f32, %in4: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %k = arith.subf %one, %in2 : f32
      %a = arith.mulf %in, %k : f32
      %b = arith.addf %a, %in3 : f32
      %r = arith.addf %b, %in4 : f32
      linalg.yield %r : f32
    } -> tensor<8x16xf32>
    scf.yield %d_next, %gwz_next, %gwh_next : tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
  return %loss, %bwd#1, %bwd#2, %bwd#0 : tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<8x16xf32>
}
