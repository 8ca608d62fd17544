"""Collectives on hosts, over the RDMA-style transport (``dataplane.net.rdma``), as NCCL runs them.

* ``plan``: a collective as data, every rank's sends and receives with their dependencies;
* ``ring``, ``tree``, ``hierarchical``, ``pairwise``: the algorithms that build plans (NCCL's
  ring and double binary tree, the rack-then-fabric hierarchy, pairwise exchange);
* ``algorithms``: the collectives nccl-tests measures, their sizes and bus-bandwidth factors,
  and ``build_plan``;
* ``runner`` and ``comm``: a communicator's ranks carrying plans out on their hosts.
"""
