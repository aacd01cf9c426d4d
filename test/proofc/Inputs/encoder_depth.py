# encoder_depth.py V10.MLIR N: the example program with its two MLP blocks
# replaced by N eval.relu layers (the cheapest layer to compile), for
# encoder-depth.test. Run as `exec` by the test (argv[1] is this file).
import sys

src, n = sys.argv[2], int(sys.argv[3])
lines = open(src).read().split("\n")
first = next(i for i, l in enumerate(lines) if "%l0 = eval.linear" in l)
ret = next(i for i, l in enumerate(lines) if "eval.return %h2" in l)
body, prev = [], "%h"
for k in range(n):
    body.append(f"    %r{k} = eval.relu {prev} : tensor<64xf32>")
    prev = f"%r{k}"
body.append(f"    eval.return {prev} : tensor<64xf32>")
print("\n".join(lines[:first] + body + lines[ret + 1:]))
