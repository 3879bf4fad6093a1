#!/usr/bin/env bash
# host_abi.sh TKC LIBTKRT_CUDA SOURCE_DIR CC: the host objects of cuda
# targets (docs/abi.md, "CUDA targets"): exported symbols, linking several
# objects into one program, header prototypes with the stream argument,
# and the status codes a program gets on a machine without a CUDA driver.
set -u
TKC=$1 RT=$2 SRC=$3 CC=$4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$WORK" || exit 1

# --schedule=default: softmax's intermediates then live in device memory
# (the constructed row kernel keeps them in registers).
for f in nn elementwise; do
  "$TKC" "$SRC/stdlib/std/$f.tk" --target=cuda-sm_80 --schedule=default -o $f.o || fail "tkc $f.o"
  "$TKC" "$SRC/stdlib/std/$f.tk" --target=cuda-sm_80 --emit=header -o $f.h || fail "tkc $f.h"
done
# Only the exports are global; the only undefined symbols are the launcher's.
nm -g --defined-only nn.o | awk '{print $3}' | sort > defined.txt
printf '%s\n' avgpool2d conv2d conv2d_bias_relu layernorm maxpool2d softmax > want.txt
diff want.txt defined.txt || fail "nn.o exports"
nm -u nn.o | awk '{print $2}' | sort > undefined.txt
printf '%s\n' tkrt_cuda_alloc tkrt_cuda_free tkrt_cuda_launch_kernel > want.txt
diff want.txt undefined.txt || fail "nn.o undefined symbols"
grep -q '^int softmax(const float \*X, float \*Y, int64_t M, int64_t N, void \*stream);' nn.h || fail "softmax prototype"
grep -q '^#define TK_STATUS_NO_CUDA_DRIVER 4' nn.h || fail "status macro"

cat > main.c <<'C'
#include "elementwise.h"
#include "nn.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int want = atoi(argv[1]);
  /* Arguments are checked on the host before anything touches the driver. */
  int bad = softmax(NULL, NULL, 4, 0, NULL); /* where N >= 1 */
  int s1 = softmax(NULL, NULL, 4, 8, NULL);  /* intermediates: device allocation first */
  int s2 = add(NULL, NULL, NULL, 1000, NULL);
  printf("where: %d, softmax: %d, add: %d\n", bad, s1, s2);
  return bad == TK_STATUS_CONSTRAINT_FAILED && s1 == want && s2 == want ? 0 : 1;
}
C
"$CC" -Wall -Werror main.c nn.o elementwise.o "$RT" -ldl -lpthread -o main || fail "link"
TK_CUDA_DRIVER=/nonexistent/libcuda.so.1 ./main 4 || fail "no-driver status (expected 4 = TK_STATUS_NO_CUDA_DRIVER)"
# The toolkit's stub libcuda.so loads but cuInit fails: also "no driver".
STUB=$(dirname "$(command -v ptxas 2>/dev/null || echo /usr/local/cuda/bin/ptxas)")/../lib64/stubs/libcuda.so
if [ -f "$STUB" ]; then
  TK_CUDA_DRIVER=$STUB ./main 4 || fail "stub driver status"
fi
echo "ok"
