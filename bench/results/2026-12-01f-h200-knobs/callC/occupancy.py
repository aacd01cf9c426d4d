"""Blocks of a PTX file's proofc_policy an SM holds (32 threads, no
dynamic shared memory, as the step schedule launches it at B >= 4096), by
cuOccupancyMaxActiveBlocksPerMultiprocessor, and its registers."""
import ctypes, sys

cu = ctypes.CDLL("libcuda.so.1")
def ok(rc, what):
    if rc != 0:
        sys.exit(f"{what} failed: {rc}")
ok(cu.cuInit(0), "cuInit")
dev = ctypes.c_int()
ok(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p()
ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
ok(cu.cuCtxSetCurrent(ctx), "set")
for path in sys.argv[1:]:
    mod = ctypes.c_void_p()
    ok(cu.cuModuleLoadData(ctypes.byref(mod), open(path, "rb").read() + b"\0"), path)
    f = ctypes.c_void_p()
    ok(cu.cuModuleGetFunction(ctypes.byref(f), mod, b"proofc_policy"), "get")
    n, regs = ctypes.c_int(), ctypes.c_int()
    ok(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), f, 32, ctypes.c_size_t(0)), "occ")
    ok(cu.cuFuncGetAttribute(ctypes.byref(regs), 4, f), "regs")  # CU_FUNC_ATTRIBUTE_NUM_REGS
    print(f"{path}: {regs.value} registers, {n.value} blocks an SM")
