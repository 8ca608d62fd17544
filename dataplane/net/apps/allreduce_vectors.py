"""The allreduce workers' input vectors, made block by block so that no one holds them whole.

A k=16 fat-tree has 1,024 workers; at 10^6 float32 each their vectors alone are 4 GB, and every
MPI rank builds every worker (``parallel.runtime``). So a worker's vector is cut into blocks of
``BLOCK`` elements, and a block is made when the worker first sends from it and dropped when
every chunk in it has its result (``InaWorker``): a worker holds a block or two at a time.

``SeededVectors``: worker ``w``'s vector is standard normals (float32) from numpy's generator
seeded with ``(seed, w)``, drawn a block at a time, in any order, so a rank draws only its own
workers' vectors and any rank draws the same values. ``ArrayVectors`` wraps vectors given whole (tests,
the Python API). ``reference`` makes every block once to find the exact float64 sum and the
largest magnitude (for the fixed-point scale): one pass, holding one block at a time.
"""
from __future__ import annotations

from array import array
from typing import Sequence

import numpy as np

BLOCK = 4096          # elements a block: 128 chunks of 32, 64 of 64
_START = 3            # array items a block's start takes: the state's high and low 64 bits, has_uint32 and uinteger
_U32, _U64 = (1 << 32) - 1, (1 << 64) - 1


class Vectors:
    """``workers`` float32 vectors of ``elements`` each, read a block at a time."""

    def __init__(self, workers: int, elements: int):
        self.workers, self.elements = workers, elements
        self.blocks = -(-elements // BLOCK)

    def block(self, worker: int, b: int) -> np.ndarray:
        """Elements ``b * BLOCK`` up to ``(b + 1) * BLOCK`` (fewer in the last block) of ``worker``."""
        raise NotImplementedError

    def vector(self, worker: int) -> np.ndarray:
        """The whole vector of ``worker`` (for code that needs it whole)."""
        if not self.blocks:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate([self.block(worker, b) for b in range(self.blocks)])

    def of(self, worker: int) -> "WorkerVector":
        return WorkerVector(self, worker)


class SeededVectors(Vectors):
    """Standard normal vectors: worker ``w``'s is ``default_rng((seed, w)).standard_normal(elements,
    dtype=float32)``, drawn ``BLOCK`` elements at a time as the blocks are asked for.

    Each worker keeps one generator and its place in the stream (one generator a worker, not
    one a block: seeding a generator costs as much as drawing a block on CPython and four
    blocks on PyPy), and the generator's state at the start of every block it has drawn
    (24 bytes a block, in one array a worker: as a tuple of ints in a dict it was 180 bytes, 45
    MB a rank for 1,024 workers at 10^6 elements). A block the generator has passed is drawn again from its
    state; so is one ahead of it, once known. The first time through (``reference`` reads
    every vector once before the run), blocks drawn on the way to a later one wait in
    ``_ahead``. So the in-network workers, which ask for their blocks about in order, and the
    ring workers, which ask for them a segment at a time from the middle of the vector, hold a
    block or a few at a time, and any rank draws the same values."""

    def __init__(self, workers: int, elements: int, seed: int = 0):
        super().__init__(workers, elements)
        self.seed = seed
        self._streams: dict[int, tuple[np.random.Generator, list[int]]] = {}   # worker -> (generator, [next block])
        self._ahead: dict[tuple[int, int], np.ndarray] = {}
        # worker -> the generator's state at the start of blocks 0, 1, ... (``_START`` items a
        # block): a stream starts at block 0 or at a block whose start is known, and draws on
        # from there, so the blocks a worker has starts for are always 0 up to some block.
        self._starts: dict[int, array] = {}

    def block(self, worker: int, b: int) -> np.ndarray:
        early = self._ahead.pop((worker, b), None)
        if early is not None:
            return early
        stream = self._streams.get(worker)
        if stream is None or stream[1][0] != b:
            starts = self._starts.get(worker)
            if starts is not None and len(starts) > b * _START:
                gen = stream[0] if stream is not None else np.random.default_rng((self.seed, worker))
                state = gen.bit_generator.state
                hi, lo, extra = starts[b * _START:(b + 1) * _START]
                state["state"]["state"], state["has_uint32"], state["uinteger"] = hi << 64 | lo, extra >> 32, \
                    extra & _U32
                gen.bit_generator.state = state
                stream = self._streams[worker] = (gen, [b])
            elif stream is None or stream[1][0] > b:
                stream = self._streams[worker] = (np.random.default_rng((self.seed, worker)), [0])
        gen, place = stream
        while place[0] < b:
            self._ahead[(worker, place[0])] = self._draw(worker, gen, place[0])
            place[0] += 1
        place[0] += 1
        return self._draw(worker, gen, b)

    def _draw(self, worker: int, gen: np.random.Generator, b: int) -> np.ndarray:
        starts = self._starts.get(worker)
        if starts is None:
            starts = self._starts[worker] = array("Q")
        if len(starts) == b * _START:        # the next block without a start (see __init__)
            state = gen.bit_generator.state
            pcg = state["state"]["state"]      # PCG64's 128-bit state
            starts.extend((pcg >> 64, pcg & _U64, state["has_uint32"] << 32 | state["uinteger"]))
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
