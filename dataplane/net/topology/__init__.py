"""What a network is: the ``TopologySpec`` data classes (switches, DPUs, hosts, links, PFC
settings), the readers of topology files (containerlab-style YAML, the P4 tutorials'
``topology.json``) with line-located errors, generated fabrics (leaf-spine, fat-tree,
dragonfly) and failure schedules. Imports ``net.core`` only."""
