"""A running network: ``Network`` builds nodes, links, hosts, controllers and captures from a
``TopologySpec`` and runs them. The top of ``dataplane.net``: it may import every other
subpackage, and the CLI and the scenarios start here."""
