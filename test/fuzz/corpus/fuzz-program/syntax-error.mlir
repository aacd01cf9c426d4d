eval.program @p attributes {A = 6 : i64, S = 120 : i64, D = 20 : i64, B = 256 : i64} {
  eval.encoder @enc(%s: !eval.state<6>) -> tensor<64xf32> {
    %x = eval.relux %s : !eval.state<6>
  }
}
