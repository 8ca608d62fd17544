"""The allreduce workers' input vectors, made block by block so that no one holds them whole.

A k=16 fat-tree has 1,024 workers; at 10^6 float32 each their vectors alone are 4 GB, and every
MPI rank builds every worker (``parallel.runtime``). So a worker's vector is cut into blocks of
``BLOCK`` elements, and a block is made when the worker first sends from it and dropped when
every chunk in it has its result (``InaWorker``): a worker holds a block or two at a time.

``SeededVectors``: worker ``w``'s vector is standard normals (float32) from numpy's generator
seeded with ``(seed, w)``, drawn a block at a time, so a rank draws only its own workers'
vectors, each once, and any rank draws the same values. ``ArrayVectors`` wraps vectors given whole (tests,
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
    """Standard normal vectors: worker ``w``'s is ``default_rng((seed, w)).standard_normal(elements,
    dtype=float32)``, drawn ``BLOCK`` elements at a time as the blocks are asked for.

    A worker asks for its blocks about in order (each once; a block can come a little before
    the one before it when results arrive out of order), so each worker keeps one generator
    and its place in the stream; blocks drawn on the way to a later one wait in ``_ahead``. A
    block from behind the generator's place starts that worker's stream again (``reference``
    reads every vector once before the run). One generator a worker, not one a block: seeding
    a generator costs as much as drawing a block on CPython and four blocks on PyPy."""

    def __init__(self, workers: int, elements: int, seed: int = 0):
        super().__init__(workers, elements)
        self.seed = seed
        self._streams: dict[int, tuple[np.random.Generator, list[int]]] = {}   # worker -> (generator, [next block])
        self._ahead: dict[tuple[int, int], np.ndarray] = {}

    def block(self, worker: int, b: int) -> np.ndarray:
        early = self._ahead.pop((worker, b), None)
        if early is not None:
            return early
        stream = self._streams.get(worker)
        if stream is None or stream[1][0] > b:
            stream = self._streams[worker] = (np.random.default_rng((self.seed, worker)), [0])
        gen, place = stream
        while place[0] < b:
            self._ahead[(worker, place[0])] = self._draw(gen, place[0])
            place[0] += 1
        place[0] += 1
        return self._draw(gen, b)

    def _draw(self, gen: np.random.Generator, b: int) -> np.ndarray:
        return gen.standard_normal(min(BLOCK, self.elements - b * BLOCK), dtype=np.float32)


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
