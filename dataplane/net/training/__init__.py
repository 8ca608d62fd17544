"""Training jobs on the fabric: GPUs that compute and communicate as a synchronous job does.

* ``job``: the job (GPUs, parallelism, layers, buckets) and its file;
* ``program``: what each GPU does in a step (GPipe micro-batches, tensor-parallel AllReduces,
  data-parallel gradient buckets overlapped with the backward);
* ``gpu``: the worker that runs a GPU's program in simulated time beside its communicators;
* ``measure``: a step taken apart (compute, communication, exposed communication, idle).
"""
