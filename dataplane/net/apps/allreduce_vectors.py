"""The allreduce workers' input vectors, made block by block so that no one holds them whole.

A k=16 fat-tree has 1,024 workers; at 10^6 float32 each their vectors alone are 4 GB, and every
MPI rank builds every worker (``parallel.runtime``). So a worker's vector is cut into blocks of
``BLOCK`` elements, and a block is made when the worker first sends from it and dropped when
every chunk in it has its result (``InaWorker``): a worker holds a block or two at a time.

``SeededVectors``: block ``b`` of worker ``w`` is ``BLOCK`` standard normals (float32) from
numpy's generator seeded with ``(seed, w, b)``, so any block can be made on its own, on any
rank, in any order, with the same values. ``ArrayVectors`` wraps vectors given whole (tests,
the Python API). ``reference`` makes every block once to find the exact float64 sum and the
largest magnitude (for the fixed-point scale): one pass, holding one block at a time.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

BLOCK = 4096          # elements a block: 128 chunks of 32, 64 of 64


class Vectors:
    """``workers`` float32 vectors of ``elements`` each, read a block at a time."""

    def __init__(self, workers: int, elements: int):
        self.workers, self.elements = workers, elements
        self.blocks = -(-elements // BLOCK)

    def block(self, worker: int, b: int) -> np.ndarray:
        """Elements ``b * BLOCK`` up to ``(b + 1) * BLOCK`` (fewer in the last block) of ``worker``."""
        raise NotImplementedError

    def vector(self, worker: int) -> np.ndarray:
        """The whole vector of ``worker`` (for code that needs it whole, the ring baseline)."""
        if not self.blocks:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate([self.block(worker, b) for b in range(self.blocks)])

    def of(self, worker: int) -> "WorkerVector":
        return WorkerVector(self, worker)


class SeededVectors(Vectors):
    """Standard normal vectors, each block from its own generator seeded ``(seed, worker, block)``."""

    def __init__(self, workers: int, elements: int, seed: int = 0):
        super().__init__(workers, elements)
        self.seed = seed

    def block(self, worker: int, b: int) -> np.ndarray:
        n = min(BLOCK, self.elements - b * BLOCK)
        return np.random.default_rng((self.seed, worker, b)).standard_normal(n, dtype=np.float32)


class ArrayVectors(Vectors):
    """Vectors given whole, all of one length."""

    def __init__(self, arrays: Sequence[np.ndarray]):
        sizes = {len(a) for a in arrays}
        if len(sizes) > 1:
            raise ValueError(f"the workers' vectors differ in length: {sorted(sizes)}")
        super().__init__(len(arrays), sizes.pop() if sizes else 0)
        self.arrays = [np.asarray(a, dtype=np.float32) for a in arrays]

    def block(self, worker: int, b: int) -> np.ndarray:
        return self.arrays[worker][b * BLOCK:(b + 1) * BLOCK]

    def vector(self, worker: int) -> np.ndarray:
        return self.arrays[worker]


class WorkerVector:
    """One worker's vector: its length and its blocks."""

    __slots__ = ("vectors", "worker", "size")

    def __init__(self, vectors: Vectors, worker: int):
        self.vectors, self.worker, self.size = vectors, worker, vectors.elements

    def block(self, b: int) -> np.ndarray:
        return self.vectors.block(self.worker, b)


def reference(vectors: Vectors) -> tuple[np.ndarray, float]:
    """The exact sum of all vectors (float64, added in worker order) and the largest |element|."""
    exact = np.zeros(vectors.elements, dtype=np.float64)
    max_abs = 0.0
    for w in range(vectors.workers):
        for b in range(vectors.blocks):
            x = vectors.block(w, b)
            if len(x):
                exact[b * BLOCK:b * BLOCK + len(x)] += x
                max_abs = max(max_abs, float(np.max(np.abs(x))))
    return exact, max_abs
