"""The interoperability page on fabshmem: PyTorch tensors (CPU, through
DLPack) and NumPy arrays on the symmetric heap, used by both their own
library and fabshmem's routines.  Exits 1 when a check failed; without
torch it does the NumPy part only.

    scripts/oshrun -n 4 /usr/bin/python3 examples/python/interop.py
"""
import sys

import numpy as np

import fabshmem.core as nvshmem

nvshmem.init()
my_pe = nvshmem.my_pe()
n_pes = nvshmem.n_pes()
next_pe = (my_pe + 1) % n_pes
prev_pe = (my_pe - 1) % n_pes
ok = True

# NumPy arrays backed by symmetric memory (the page's CuPy part).
array = nvshmem.interop.numpy.empty((100, 100), dtype=np.float32)
array[:] = my_pe
array = np.sqrt(array * 4.0, out=array)  # NumPy operations keep the memory
nvshmem.barrier_all()
got = np.empty((100, 100), np.float32)
nvshmem.get(got, array, count=array.size, pe=prev_pe)
ok &= bool((got == 2 * np.sqrt(prev_pe)).all())
nvshmem.barrier_all()
nvshmem.free_array(array)

try:
    import torch
except ImportError:
    torch = None
    print("interop: no torch (Debian: python3-torch): the NumPy part only", flush=True)

if torch is not None:
    # A PyTorch tensor backed by symmetric memory.
    tensor = nvshmem.interop.torch.empty((100, 100), dtype=torch.float32)
    tensor.fill_(my_pe)
    tensor.add_(1.0)
    torch.nn.functional.relu(tensor, inplace=True)  # torch operations in place
    inbox = nvshmem.interop.torch.tensor((100, 100), dtype=torch.float32)
    nvshmem.barrier_all()
    # Put data to the next PE.
    nvshmem.put(inbox, tensor, count=tensor.numel(), pe=next_pe)
    nvshmem.barrier_all()
    ok &= bool((inbox == prev_pe + 1).all())
    buf, size, dtype = nvshmem.interop.torch.tensor_get_buffer(tensor)
    ok &= size == 40000 and dtype == "float32"
    nvshmem.free_tensor(tensor)
    nvshmem.interop.torch.free_tensor(inbox)

nvshmem.finalize()
print(f"interop: PE {my_pe}: {'all checks passed' if ok else 'FAILED'}", flush=True)
sys.exit(0 if ok else 1)
