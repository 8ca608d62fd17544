"""Partitioned parallel simulation over MPI (mpi4py): cutting the topology into parts
(``partition``), running each part on one rank with conservative time windows (``runtime``),
and gathering the results to rank 0 so they are written as one process writes them (``gather``)."""
