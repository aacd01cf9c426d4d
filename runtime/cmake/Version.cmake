# The proofc version, defined here and nowhere else. The project() of the
# whole build and of the runtime alone, the runtime's PROOFC_VERSION (the
# report's provenance, a compiled bundle's "proofc_version", and part of the
# CUDA kernel-cache key, cuda/KernelCache.h) and the installed package's
# proofcConfigVersion.cmake all read it, so it is the same whether the
# runtime is built with the project, alone (`cmake -S runtime`) or under
# another project's add_subdirectory().
set(PROOFC_VERSION 0.1.0)
